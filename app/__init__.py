"""SPICE Triage application: CLI, webhook service, GitHub adapter, queue and store."""
