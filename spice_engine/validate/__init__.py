"""Execution-based validation of task instances (FAIL_TO_PASS / PASS_TO_PASS)."""
