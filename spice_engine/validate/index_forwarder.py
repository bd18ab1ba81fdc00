"""Inside the sandbox, while installing: the way to the host's index proxy.

`python -I -S index_forwarder.py SOCKET -- CMD...` listens on 127.0.0.1 in the sandbox's own
network namespace (which has nothing else), hands each connection to the index proxy's unix
socket, runs CMD with the proxy variables pointing here, and exits with its status.

The sandbox's code can kill this or talk to the socket itself: that only costs it the index.
What is reachable is decided by the proxy on the host, never here. Runs under the job's own
interpreter (3.6 and later): the standard library only, type comments, no newer syntax.
"""

import os
import select
import socket
import subprocess
import sys
import threading
import time

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
DROPPED = ("ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")


def _relay(client, path):
    # type: (socket.socket, str) -> None
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other = {client: upstream, upstream: client}
    try:
        upstream.connect(path)
        while True:
            ready = select.select(list(other), [], [])[0]
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                other[sock].sendall(data)
    except OSError:
        return
    finally:
        client.close()
        upstream.close()


def _serve(listener, path):
    # type: (socket.socket, str) -> None
    while True:
        try:
            client = listener.accept()[0]
        except OSError:  # out of file descriptors, for a moment: the next one may do
            time.sleep(0.05)
            continue
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def main(argv):
    # type: (list) -> int
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: index_forwarder.py SOCKET -- CMD...\n")
        return 2
    path, cmd = argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = dict((k, v) for k, v in os.environ.items() if k not in DROPPED)
    env.update((name, url) for name in PROXY_VARIABLES)
    threading.stack_size(256 * 1024)  # uv opens dozens of connections; each a thread
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        child = subprocess.Popen(cmd, env=env)
    except OSError as exc:
        sys.stderr.write(f"spice forwarder: cannot run {cmd[0]}: {exc}\n")
        return 127
    code = child.wait()
    return code if code >= 0 else 128 - code  # killed by a signal: as a shell says it


if __name__ == "__main__":
    sys.exit(main(sys.argv))
