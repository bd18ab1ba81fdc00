"""The dashboard: server-rendered pages of what SPICE decided per repository, for the
people who may write to it (GitHub sign-in) and for the operator (a token)."""
