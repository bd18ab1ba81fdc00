"""The webhook service: FastAPI app, one router per feature, gunicorn configuration."""
