"""The `spice` command line: one module per command group, combined in `main`."""
