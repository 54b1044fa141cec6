"""The front ends: test modules, descriptions (docstrings, worked examples), the
specification language, twins, assumptions and objects."""
