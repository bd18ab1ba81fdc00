"""Durable jobs on huey: SQLite queue by default, Redis when configured, the same task code."""
