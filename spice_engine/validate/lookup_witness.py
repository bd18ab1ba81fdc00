"""Inside the sandbox, while tests run: the C library's name service, noting what is looked up.

`python3 -I -S lookup_witness.py -- CMD...` listens where glibc looks for its name service
cache daemon (`/var/run/nscd/socket`, a folder of the sandbox's own), runs CMD, and exits with
its status. glibc asks it for every host name a process of CMD resolves: a name in the
sandbox's `/etc/hosts` is answered from it, as glibc's own files would; any other name is
answered "not found" (there is no network to ask) after one line, `NOTE <name>]`, is written
to this process's standard error, which is the run's log. The line lands in the log before the
lookup returns, so a runner's own markers around it (googletest's `[ RUN      ]` and
`[  FAILED  ]`) say which test looked the name up. Any other question (users, groups) gets no
answer, and glibc reads its files as it does without the daemon.

The sandbox's code can kill this or write such lines itself: the lines only ever move a test
that failed both before and after the fix from one "in neither list" group to another. Runs
under the machine's own interpreter; the standard library only, type comments.
"""

import os
import socket
import struct
import subprocess
import sys
import threading

NOTE = "[spice sandbox: no network for a name lookup of "
"""How each line noting a lookup starts (the name and `]` follow)."""
SOCKET = "/var/run/nscd/socket"
NOTES_LIMIT = 2000
"""Lines written at most (a test that looks names up in a loop must not fill the log)."""
_VERSION = 2
_GETHOSTBYNAME, _GETHOSTBYNAMEV6, _GETHOSTBYADDR, _GETHOSTBYADDRV6 = 4, 5, 6, 7
_GETAI = 14
_TRY_AGAIN = 2
_KEY_LIMIT = 1024
_FAMILIES = {4: socket.AF_INET, 16: socket.AF_INET6}


def hosts(text):
    # type: (str) -> list
    """`(address bytes, [names])` for each line of an `/etc/hosts`, in its order."""
    found = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) < 2:
            continue
        for family in (socket.AF_INET, socket.AF_INET6):
            try:
                found.append((socket.inet_pton(family, words[0]), words[1:]))
                break
            except OSError:
                continue
    return found


def _by_name(table, name, sizes):
    # type: (list, str, tuple) -> tuple
    """(canonical name, aliases, addresses) of the lines naming `name` (files' way: the
    first such line's names; every such line's address of the sizes asked for)."""
    wanted = name.rstrip(".").lower()
    lines = [(a, n) for a, n in table if wanted in (x.lower() for x in n) and len(a) in sizes]
    if not lines:
        return None, [], []
    names = lines[0][1]
    return names[0], names[1:], [a for a, _ in lines]


def _ai_answer(table, name):
    # type: (list, str) -> bytes
    canon, _, addresses = _by_name(table, name, (4, 16))
    if not addresses:
        return struct.pack("6i", _VERSION, 0, 0, 0, 0, _TRY_AGAIN)
    data = b"".join(addresses) + bytes(_FAMILIES[len(a)] for a in addresses)
    canon_bytes = canon.encode() + b"\0"
    head = struct.pack(
        "6i", _VERSION, 1, len(addresses), sum(map(len, addresses)), len(canon_bytes), 0
    )
    return head + data + canon_bytes


def _host_answer(found):
    # type: (tuple) -> bytes
    name, aliases, addresses = found
    if not addresses:
        return struct.pack("8i", _VERSION, 0, 0, 0, 0, 0, 0, _TRY_AGAIN)
    size = len(addresses[0])
    family = _FAMILIES[size]
    name_bytes = name.encode() + b"\0"
    alias_bytes = [a.encode() + b"\0" for a in aliases]
    head = struct.pack(
        "8i", _VERSION, 1, len(name_bytes), len(aliases), family, size, len(addresses), 0
    )
    lengths = b"".join(struct.pack("I", len(a)) for a in alias_bytes)
    return head + name_bytes + lengths + b"".join(addresses) + b"".join(alias_bytes)


def _by_address(table, key):
    # type: (list, bytes) -> tuple
    for address, names in table:
        if address == key:
            return names[0], names[1:], [address]
    return None, [], []


def answer(table, kind, key):
    # type: (list, int, bytes) -> tuple
    """(the reply to a request, the name to note or None); a reply of b"" closes the
    connection unanswered (glibc then reads its own files)."""
    if kind in (_GETHOSTBYADDR, _GETHOSTBYADDRV6):
        return _host_answer(_by_address(table, key)), None
    if kind not in (_GETAI, _GETHOSTBYNAME, _GETHOSTBYNAMEV6):
        return b"", None
    name = key.rstrip(b"\0").decode("ascii", "replace")
    if kind == _GETAI:
        reply = _ai_answer(table, name)
    else:
        reply = _host_answer(_by_name(table, name, (4,) if kind == _GETHOSTBYNAME else (16,)))
    known = reply[4:8] == struct.pack("i", 1) or name.lower() == socket.gethostname().lower()
    return reply, None if known else name


def _read(conn, size):
    # type: (socket.socket, int) -> bytes
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


class Witness:
    def __init__(self, table):
        # type: (list) -> None
        self.table, self.noted, self.lock = table, 0, threading.Lock()

    def note(self, name):
        # type: (str) -> None
        shown = "".join(c if c.isprintable() and c != "]" else "?" for c in name)[:253]
        with self.lock:
            if self.noted < NOTES_LIMIT:
                self.noted += 1
                os.write(2, (NOTE + shown + "]\n").encode("ascii", "replace"))

    def serve(self, conn):
        # type: (socket.socket) -> None
        try:
            conn.settimeout(5)
            head = _read(conn, 12)
            if len(head) < 12:
                return
            _, kind, size = struct.unpack("3i", head)
            if not 0 < size <= _KEY_LIMIT:
                return
            reply, noted = answer(self.table, kind, _read(conn, size))
            if noted is not None:
                self.note(noted)  # before the reply: the test is still inside its lookup
            if reply:
                conn.sendall(reply)
        except (OSError, ValueError, struct.error):
            return
        finally:
            conn.close()


def _listen(witness, listener):
    # type: (Witness, socket.socket) -> None
    while True:
        try:
            conn = listener.accept()[0]
        except OSError:
            continue
        threading.Thread(target=witness.serve, args=(conn,), daemon=True).start()


def main(argv):
    # type: (list) -> int
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: lookup_witness.py -- CMD...\n")
        return 2
    try:
        with open("/etc/hosts") as f:
            table = hosts(f.read())
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(SOCKET)
        os.chmod(SOCKET, 0o666)
        listener.listen(64)
    except OSError:
        listener = None  # no folder for it: the command runs as it would without
    if listener is not None:
        threading.Thread(target=_listen, args=(Witness(table), listener), daemon=True).start()
    try:
        # The command's descriptors are its own (the results channel may be one of them).
        code = subprocess.call(argv[2:], close_fds=False)
    except OSError as exc:
        sys.stderr.write(f"lookup_witness.py: {argv[2]}: {exc}\n")
        return 127
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
