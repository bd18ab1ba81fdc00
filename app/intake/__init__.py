"""Accepting verified webhook deliveries: stored once, their job noted, a run enqueued."""
