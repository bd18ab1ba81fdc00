"""Scoring labels and signals against human labels."""
