"""Test strength of a fix: ablation of its parts and mutation of the lines it changes."""
