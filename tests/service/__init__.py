"""Helpers shared by the service tests (web, store, queue): settings, signed deliveries."""
