# syntax=docker/dockerfile:1
# SPICE Triage GitHub App. One image, two roles:
#   docker run ... spice-triage            the webhook service (`spice serve`, port 8000)
#   docker run ... spice-triage worker     the job consumer (`spice worker`)
# Build: docker build -t spice-triage .
#
# Validation runs repositories' code in bubblewrap inside the container. Start both roles with
#   --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#   --security-opt systempaths=unconfined
# (namespaces, a /proc of the sandbox's own, mounts on AppArmor hosts; no capability is added;
# why each, in docs/app.md#docker). Without them validation is off and
# /healthz says why. The worker may run as the image's user or as root (--user 0).
#
# The base: any Debian bookworm image with python3 (3.11) and its venv module. The default is
# the Python image at an exact release, not a floating tag; production pins its digest too
# (--build-arg BASE_IMAGE=python:3.11.14-slim-bookworm@sha256:<digest>). Without a registry,
# scripts/docker-base-image.sh makes spice-base:bookworm from Debian's packages:
#   docker build --build-arg BASE_IMAGE=spice-base:bookworm -t spice-triage .
ARG BASE_IMAGE=python:3.11.14-slim-bookworm

# --- build: resolve the pinned set into a virtualenv (x86_64 wheels for every pin: no compiler) ---
FROM ${BASE_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# Dependencies first, from the lock, against empty packages (and an empty README, which only
# feeds the metadata): a code or docs edit reuses this layer.
COPY pyproject.toml constraints.txt ./
RUN mkdir -p app spice_engine prompts \
    && touch README.md app/__init__.py spice_engine/__init__.py \
    && pip install --constraint constraints.txt . \
    && pip uninstall --yes spice-triage
# Then the code, without touching the dependencies.
COPY README.md ./
COPY spice_engine ./spice_engine
COPY app ./app
COPY prompts ./prompts
RUN pip install --no-deps .

# --- runtime: the virtualenv only, as an unprivileged user ---
FROM ${BASE_IMAGE} AS runtime
# git: the worker clones each repository once to read pull requests at their base.
# bubblewrap: the sandbox validation runs repositories' code in (the flags it needs are in the
# header above; util-linux's setpriv, prlimit and unshare come with the base).
RUN apt-get update \
    && apt-get install -y --no-install-recommends git bubblewrap \
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
# Fits the role: the web service's /healthz (database, disk), or the worker's heartbeat
# (touched every 30 s while its store answers). Standard library only: cheap every 30 s.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-m", "app.healthcheck"]
# What `docker stop` sends: the web service drains, a worker hands back the job it cannot
# finish within SPICE_WORKER_STOP_GRACE_S (keep that under docker stop's own 10 s timeout).
STOPSIGNAL SIGTERM
ENTRYPOINT ["spice"]
# `serve` refuses to start without SPICE_WEBHOOK_SECRET.
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
