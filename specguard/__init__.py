"""SpecGuard: decide whether a coding task's description and its tests can both be satisfied,
and certify conflicts with the Lean 4 kernel."""

__version__ = "0.1.0"
