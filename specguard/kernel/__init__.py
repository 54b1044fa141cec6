"""The Lean side: emit Lean over the core theory, prove claims, check certificates, and the one
place that starts Lean (runner)."""
