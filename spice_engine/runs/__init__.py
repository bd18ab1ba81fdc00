"""An instance's tests run in its language's environment: the planner (rows to jobs), the
session over one tree, validation, and the batches over many rows."""
