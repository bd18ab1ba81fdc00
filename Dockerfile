# syntax=docker/dockerfile:1
# SPICE Triage GitHub App: the webhook service (`spice serve`); the same image runs the job
# consumer with `--entrypoint spice ... worker`. Build: docker build -t spice-triage .

# --- build: resolve the pinned set into a virtualenv (compilers stay in this stage) ---
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies first, so code changes do not re-resolve them.
COPY pyproject.toml constraints.txt README.md ./
COPY spice_engine ./spice_engine
COPY app ./app
COPY prompts ./prompts
RUN pip install --constraint constraints.txt .

# --- runtime: the virtualenv only, as an unprivileged user ---
FROM python:3.11-slim AS runtime
# git: the worker clones each repository once to read pull requests at their base.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 spice \
    && useradd --system --uid 10001 --gid spice --home-dir /srv/spice --create-home spice \
    && mkdir -p /srv/spice/data \
    && chown spice:spice /srv/spice/data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    SPICE_DATA_DIR=/srv/spice/data
USER spice
WORKDIR /srv/spice
VOLUME ["/srv/spice/data"]
EXPOSE 8000
# slim has no curl: ask /healthz (which also checks the database) with the stdlib.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
# The README's serve command; it refuses to start without SPICE_WEBHOOK_SECRET.
ENTRYPOINT ["spice", "serve", "--host", "0.0.0.0", "--port", "8000"]
