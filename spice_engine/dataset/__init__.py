"""What a validated instance carries to other people's tools: its environment recipe, its
runs' per-test results, Multi-SWE-bench's record of it."""
