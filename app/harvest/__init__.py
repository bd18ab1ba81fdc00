"""Harvest: merged PRs -> labelled SWE-bench-style task instances, live and at scale."""
