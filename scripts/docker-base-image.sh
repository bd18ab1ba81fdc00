#!/usr/bin/env bash
# Build the local base image (default spice-base:bookworm) when the daemon does not have it.
#
# Why: no image registry is reachable from this project's machines, so `FROM debian:...` or
# `FROM python:...` cannot be pulled. Debian's package mirror is reachable, so the image is
# made from packages: debootstrap a minimal bookworm (python3, python3-venv, git,
# ca-certificates) into a temporary directory and `docker import` it. About 1-2 minutes,
# ~270 MB. Idempotent: an image already present under the name is left as it is.
#
# An operator who can pull images, or has an approved base image, supplies it instead and
# this script then does nothing. Put any image that has /bin/sh, python3 with venv, git and
# CA certificates under the name, e.g.
#     docker pull debian:bookworm-slim   # + the packages above, or python:3.11-slim-bookworm
#     docker tag python:3.11-slim-bookworm spice-base:bookworm
# or `docker load -i base.tar` of an image saved elsewhere (then tag it), or pass another
# name: scripts/docker-base-image.sh registry.example/team/base:1  (absent -> built here).
#
# Certificates: TLS on this machine's network goes through an inspecting proxy whose CA is
# trusted by the host through /usr/local/share/ca-certificates. The same *.crt files are
# copied into the image (update-ca-certificates), so `pip install` in `docker build` RUN
# steps verifies PyPI. SSL_CERT_FILE and REQUESTS_CA_BUNDLE name the system bundle, for the
# tools that otherwise bring their own roots (uv, requests with certifi).
# SPICE_BASE_EXTRA_CA_DIR='' copies none. The image is local only: never push it.
#
# Usage: scripts/docker-base-image.sh [--force] [--install] [IMAGE]
#   IMAGE      image name (default spice-base:bookworm)
#   --force    rebuild even when the image exists
#   --install  apt-get install debootstrap first when it is absent (needs root)
# Environment:
#   SPICE_BASE_SUITE          Debian suite (default bookworm)
#   SPICE_BASE_MIRROR         Debian mirror (default: the one apt uses here, else deb.debian.org)
#   SPICE_BASE_PACKAGES       packages to include (comma-separated, default below)
#   SPICE_BASE_EXTRA_CA_DIR   extra CA certificates (*.crt) to trust (default /usr/local/share/ca-certificates)
# Needs: root (debootstrap, chroot), a Docker daemon (scripts/docker-daemon.sh starts one).
set -euo pipefail

IMAGE=spice-base:bookworm
FORCE=0
INSTALL=0
SUITE=${SPICE_BASE_SUITE:-bookworm}
PACKAGES=${SPICE_BASE_PACKAGES:-python3,python3-venv,git,ca-certificates}
CA_DIR=${SPICE_BASE_EXTRA_CA_DIR-/usr/local/share/ca-certificates}

fail() {
    echo "docker-base-image: $*" >&2
    exit 1
}
say() { echo "docker-base-image: $*"; }

for arg in "$@"; do
    case $arg in
        --force) FORCE=1 ;;
        --install) INSTALL=1 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        -*)
            echo "docker-base-image: unknown option: $arg (see --help)" >&2
            exit 2
            ;;
        *) IMAGE=$arg ;;
    esac
done

command -v docker >/dev/null 2>&1 || fail "no docker client on PATH"
timeout 15 docker info >/dev/null 2>&1 || fail "no Docker daemon answers \`docker info\` (run scripts/docker-daemon.sh)"

present() { docker image inspect "$IMAGE" >/dev/null 2>&1; }

if [[ $FORCE == 0 ]] && present; then
    say "$IMAGE present ($(docker image inspect --format '{{.Id}}' "$IMAGE" | cut -c1-19)), nothing to do"
    exit 0
fi

[[ $(id -u) == 0 ]] || fail "$IMAGE is absent and building it (debootstrap, chroot) needs root"

if ! command -v debootstrap >/dev/null 2>&1; then
    [[ $INSTALL == 1 ]] || fail "$IMAGE is absent and debootstrap is not installed (apt-get install debootstrap, or run with --install)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q debootstrap >/tmp/docker-base-image-apt.log 2>&1; then
        apt-get update -q >>/tmp/docker-base-image-apt.log 2>&1 || true
        apt-get install -y -q debootstrap >>/tmp/docker-base-image-apt.log 2>&1 ||
            fail "apt-get install debootstrap failed: $(tail -n 1 /tmp/docker-base-image-apt.log)"
    fi
fi

# The Debian mirror apt uses on this machine (deb822 .sources or one-line .list), skipping
# the security archive; deb.debian.org when none is found.
apt_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -r $f ]] && awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -r $f ]] && awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
    done
}
if [[ -n ${SPICE_BASE_MIRROR:-} ]]; then
    MIRROR=$SPICE_BASE_MIRROR
else
    MIRROR=$(apt_mirror 2>/dev/null | grep -E '^https?://.*/debian/?$' | head -n 1 || true)
    MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi

# One build at a time; a second caller waits, then finds the image present.
exec 9>"/tmp/docker-base-image.$(printf '%s' "$IMAGE" | tr -c 'A-Za-z0-9._-' _).lock"
flock 9
if [[ $FORCE == 0 ]] && present; then
    say "$IMAGE present (built by another caller), nothing to do"
    exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/spice-base.XXXXXX")
cleanup() { rm -rf --one-file-system "$WORK"; }
trap cleanup EXIT
ROOT=$WORK/rootfs

start=$SECONDS
say "debootstrap $SUITE from $MIRROR with $PACKAGES (log $WORK/debootstrap.log while it runs)"
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
    cp "$WORK/debootstrap.log" /tmp/docker-base-image-debootstrap.log
    fail "debootstrap failed: $(grep -E '^[EW]:' "$WORK/debootstrap.log" | tail -n 1) (log /tmp/docker-base-image-debootstrap.log)"
fi
say "debootstrap done in $((SECONDS - start))s"

shopt -s nullglob
if [[ -n $CA_DIR ]]; then
    cas=("$CA_DIR"/*.crt)
    if ((${#cas[@]})); then
        cp "${cas[@]}" "$ROOT/usr/local/share/ca-certificates/"
        chroot "$ROOT" update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates in the image failed"
        say "trusting ${#cas[@]} extra CA certificate(s) from $CA_DIR"
    fi
fi

# Downloaded packages and apt lists: 100+ MB that a container never needs
# (`apt-get update` fetches the lists again).
rm -f "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/cache/apt/*.bin
find "$ROOT/var/lib/apt/lists" -type f ! -name lock -delete
rm -rf "$ROOT"/tmp/* "$ROOT"/var/tmp/*
# The host's interpreters are mounted at their own paths, pyenv's under /root: the containers'
# unprivileged user must be able to pass through it (it holds nothing in the image).
chmod 0755 "$ROOT/root"
: >"$ROOT/etc/resolv.conf" # Docker mounts its own; the host's is not for the image
echo spice-base >"$ROOT/etc/hostname"

start=$SECONDS
tar --numeric-owner -C "$ROOT" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt' \
    --change "LABEL org.opencontainers.image.description=\"debootstrap $SUITE minbase + $PACKAGES\"" \
    --change 'CMD ["/bin/bash"]' \
    - "$IMAGE" >/dev/null
say "imported $IMAGE in $((SECONDS - start))s"

out=$(docker run --rm --network none --read-only --user 65534:65534 "$IMAGE" \
    python3 -c 'import sys, ssl, venv; print(sys.version.split()[0])' 2>&1) ||
    fail "$IMAGE was imported but python3 does not run in it: $out"
size=$(docker image inspect --format '{{.Size}}' "$IMAGE")
say "$IMAGE ready: python $out, $((size / 1000000)) MB"
