"""Grading predictions (model patches) on validated instances of any language, in the sandbox
and environment their validation used, with SWE-bench's report shapes."""
