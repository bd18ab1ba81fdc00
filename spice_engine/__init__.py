"""SPICE labeling engine: rubric-based LLM labels with k votes, free of web, GitHub and queue code."""

__version__ = "0.1.0"
