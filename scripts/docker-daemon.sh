#!/usr/bin/env bash
# Make sure a Docker daemon answers `docker info`, starting a local dockerd if none does.
#
# Why: the Docker executor (spice_engine/validate/docker.py) and its tests need a daemon.
# Machines of this project have no init system running docker.service, so nothing starts
# one; CI calls this first and skips the Docker suite, with the printed reason, when it
# exits non-zero:
#     if why=$(scripts/docker-daemon.sh --install 2>&1); then ...run docker tests...
#     else echo "skipping Docker tests: $why"; fi
#
# Operators with their own daemon (Docker Desktop, a systemd docker.service, a remote
# engine via DOCKER_HOST=tcp://... or ssh://..., rootless Docker) need nothing from this
# script: when `docker info` already answers it exits 0 and touches nothing. It only ever
# starts a daemon on the default local socket, and never when DOCKER_HOST names another one.
#
# Start order: dockerd with its defaults (overlay2, docker0 bridge, iptables: all work on
# this machine's kernel); if that does not come up, once more with the options that run
# inside most containers: --storage-driver=vfs --iptables=false --ip6tables=false
# --bridge=none (then `docker run -p` publishes nothing: use --network host there).
#
# Usage: scripts/docker-daemon.sh [--install]
#   --install      apt-get install docker.io first when dockerd is absent (needs root)
# Environment:
#   DOCKERD_LOG      dockerd's log (default /tmp/dockerd.log)
#   DOCKERD_TIMEOUT  seconds to wait for each start attempt (default 30)
#   DOCKERD_OPTS     extra dockerd options for every attempt (word-split)
# Output: one line; on success "docker-daemon: ready ..." on stdout, exit 0; on failure
# "docker-daemon: <reason>" on stderr, exit 1 (2 for a usage error).
set -euo pipefail

LOG=${DOCKERD_LOG:-/tmp/dockerd.log}
TIMEOUT=${DOCKERD_TIMEOUT:-30}
INSTALL=0

fail() {
    echo "docker-daemon: $*" >&2
    exit 1
}

for arg in "$@"; do
    case $arg in
        --install) INSTALL=1 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "docker-daemon: unknown argument: $arg (see --help)" >&2
            exit 2
            ;;
    esac
done

answers() {
    timeout 15 docker info >/dev/null 2>&1
}

ready() {
    local how=$1 version driver
    version=$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')
    driver=$(docker info --format '{{.Driver}}' 2>/dev/null || echo '?')
    echo "docker-daemon: ready ($how; server $version, storage $driver)"
    exit 0
}

if [[ $INSTALL == 1 ]] && ! command -v dockerd >/dev/null 2>&1; then
    [[ $(id -u) == 0 ]] || fail "dockerd is not installed and --install needs root"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q docker.io >/tmp/docker-daemon-apt.log 2>&1; then
        apt-get update -q >>/tmp/docker-daemon-apt.log 2>&1 || true
        apt-get install -y -q docker.io >>/tmp/docker-daemon-apt.log 2>&1 ||
            fail "apt-get install docker.io failed: $(tail -n 1 /tmp/docker-daemon-apt.log)"
    fi
fi

command -v docker >/dev/null 2>&1 || fail "no docker client on PATH (apt-get install docker.io, or run with --install)"

if answers; then
    ready "already running"
fi

case ${DOCKER_HOST:-unix:///var/run/docker.sock} in
    unix:///var/run/docker.sock | unix:///run/docker.sock) ;;
    *) fail "DOCKER_HOST=$DOCKER_HOST does not answer \`docker info\`, and this script only starts a local daemon" ;;
esac

command -v dockerd >/dev/null 2>&1 || fail "dockerd is not installed (apt-get install docker.io, or run with --install)"
[[ $(id -u) == 0 ]] || fail "dockerd is not running and starting it needs root (or use rootless Docker / DOCKER_HOST)"

# One starter at a time; a caller that waited finds the daemon answering.
exec 9>/var/run/docker-daemon-sh.lock
flock 9
if answers; then
    ready "started by another caller"
fi

PIDFILE=/var/run/docker.pid

# running PID: the process exists and is not a zombie (kill -0 succeeds on zombies, and
# orphaned zombies linger here). dockerd_alive PID: also is a dockerd, not a reused pid
# (/run is on disk here, so a pid file can outlive the process and even the boot).
running() {
    local state
    state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
    [[ -n $state && $state != Z && $state != X ]]
}
dockerd_alive() {
    [[ $1 =~ ^[0-9]+$ && $(cat "/proc/$1/comm" 2>/dev/null) == dockerd ]] && running "$1"
}

# A dockerd that is alive but not answering yet (another caller just started it): wait for it.
if [[ -s $PIDFILE ]] && dockerd_alive "$(cat "$PIDFILE")"; then
    for ((i = 0; i < TIMEOUT * 2; i++)); do
        answers && ready "started by another caller"
        sleep 0.5
    done
    fail "dockerd (pid $(cat "$PIDFILE")) runs but does not answer \`docker info\` after ${TIMEOUT}s; see its log"
fi
rm -f "$PIDFILE" # stale: dockerd refuses to start over it
# A killed dockerd can leave its containerd's pid file naming a dead or zombie process;
# dockerd then waits on that "still running" containerd until it times out.
CTRD_PIDFILE=/var/run/docker/containerd/containerd.pid
if [[ -s $CTRD_PIDFILE ]] && ! running "$(cat "$CTRD_PIDFILE")"; then
    rm -f "$CTRD_PIDFILE"
fi

# last_error: the last fatal/error line that dockerd logged since byte offset $1 (else its
# last line), on one line, trimmed.
last_error() {
    local text line
    text=$(tail -c +"$(($1 + 1))" "$LOG" 2>/dev/null | grep -v '^=== docker-daemon.sh' | grep -v '^[[:space:]]*$' || true)
    line=$(grep -E 'level=(fatal|error)' <<<"$text" | tail -n 1 || true)
    [[ -n $line ]] || line=$(grep -iE 'error|fail|unknown|denied|not ' <<<"$text" | tail -n 1 || true)
    [[ -n $line ]] || line=$(tail -n 1 <<<"$text")
    line=${line#*msg=}
    line=${line#Status: }
    echo "${line:0:300}"
}

# try NAME OPTS...: start dockerd with OPTS; 0 once it answers, 1 (daemon stopped) otherwise.
WHY=""
try() {
    local name=$1 offset pid i
    shift
    offset=$(stat -c %s "$LOG" 2>/dev/null || echo 0)
    echo "=== docker-daemon.sh: $(date -u +%FT%TZ) dockerd${*:+ $*} ($name)" >>"$LOG"
    # setsid + nohup + no stdin: the daemon outlives this script and the caller's terminal;
    # 9>&-: it must not inherit (and hold forever) the starters' lock.
    # shellcheck disable=SC2086  # DOCKERD_OPTS is word-split on purpose
    setsid nohup dockerd "$@" ${DOCKERD_OPTS:-} </dev/null >>"$LOG" 2>&1 9>&- &
    pid=$!
    for ((i = 0; i < TIMEOUT * 4; i++)); do
        if answers; then
            return 0
        fi
        if ! running "$pid"; then
            WHY="dockerd ($name) exited: $(last_error "$offset")"
            return 1
        fi
        sleep 0.25
    done
    WHY="dockerd ($name) did not answer within ${TIMEOUT}s: $(last_error "$offset")"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$PIDFILE"
    return 1
}

if try defaults; then
    ready "started, defaults, log $LOG"
fi
FIRST=$WHY
if try container-safe --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none; then
    ready "started with --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none, log $LOG"
fi
fail "cannot start dockerd: $FIRST; then $WHY (log $LOG)"
