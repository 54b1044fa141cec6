"""Python's semantics, shared by everything that reads Python: exact values, constant
expressions, name bindings, observation terms, the iterator model, pytest/unittest collection."""
