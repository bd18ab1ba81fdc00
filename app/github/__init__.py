"""GitHub side of SPICE Triage: auth, a narrow repository client, labels and the sticky comment."""
