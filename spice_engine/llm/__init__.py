"""Model access: litellm adapter, output formats, retries and k-vote collection."""
