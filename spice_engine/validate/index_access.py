"""Where an install may go: its language's registries and the operator's index, at public
addresses only.

The index proxy (spice_engine.validate.index_proxy) asks this for every request. The operator's
own index settings name hosts every install may reach; each install adds the registries its
language's plan names (`reaching`), so an install of one language cannot reach another's. Only
a host the operator named may be at a private address (a mirror on the LAN). The name is
resolved where the proxy runs, on the host, so a sandbox cannot point an allowed name elsewhere.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

INDEX_SETTINGS = ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX")
"""The worker's settings that name an index (each a URL, or several separated by spaces)."""
_DEFAULT_PORT = {"https": 443, "http": 80}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_REFUSED = [
    (ipaddress.ip_network(net), what)
    for net, what in (
        ("0.0.0.0/8", "'this network'"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local (cloud metadata)"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("fc00::/7", "unique local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
]
"""Addresses of the machine, its networks and its cloud: never an index the operator did not
name. (Documentation and benchmarking ranges are not here: some networks' DNS answers with
them for public names.)"""


class IndexSettingError(ValueError):
    """A worker's index or proxy setting the index proxy cannot follow; the message says which."""


class IndexAccess(BaseModel):
    """What the index proxy lets an install reach."""

    model_config = ConfigDict(frozen=True)

    https: frozenset[str] = frozenset()
    """`host:port` a tunnel (CONNECT) may be opened to."""
    http: frozenset[str] = frozenset()
    """`host:port` a plain GET may be sent to: an operator's index served over http."""
    named: frozenset[str] = frozenset()
    """Hosts the operator named: only these may resolve to private or loopback addresses."""
    https_proxy: str | None = None
    """The worker's own proxy (`http://`), tunnels are chained through."""
    http_proxy: str | None = None
    """The worker's own proxy for plain http."""
    no_proxy: str = ""
    """The worker's NO_PROXY: hosts reached without its proxy."""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> IndexAccess:
        """The indexes the worker's uv settings name, and the worker's own proxies."""
        https, http, named = set[str](), set[str](), set[str]()
        for setting in INDEX_SETTINGS:
            for word in environ.get(setting, "").split():
                name, _, url = word.partition("=")  # UV_INDEX takes `name=url` too
                parts = urlsplit(url if "://" not in name and url else word)
                if parts.scheme not in _DEFAULT_PORT or not parts.hostname:
                    continue  # a local directory: nothing to reach
                host = _normal(parts.hostname)
                port = parts.port or _DEFAULT_PORT[parts.scheme]
                (https if parts.scheme == "https" else http).add(f"{host}:{port}")
                named.add(host)
        return cls(
            https=frozenset(https),
            http=frozenset(http),
            named=frozenset(named),
            https_proxy=_proxy_url(environ, "HTTPS_PROXY"),
            http_proxy=_proxy_url(environ, "HTTP_PROXY"),
            no_proxy=environ.get("NO_PROXY") or environ.get("no_proxy") or "",
        )

    def reaching(self, registries: Iterable[str]) -> IndexAccess:
        """This, and tunnels to `registries` (`host:port`, an install's plan's): public
        registries, so none of them is `named`."""
        more = {_host_port(r) for r in registries}
        return self.model_copy(update={"https": self.https | more}) if more else self

    def allows(self, scheme: str, host: str, port: int) -> bool:
        return f"{_normal(host)}:{port}" in (self.https if scheme == "https" else self.http)

    def upstream(self, scheme: str, host: str) -> str | None:
        """The worker's proxy to go through to `host`, None to connect directly."""
        proxy = self.https_proxy if scheme == "https" else self.http_proxy
        return None if proxy is None or _bypassed(_normal(host), self.no_proxy) else proxy


def refused_address(address: str) -> str | None:
    """Why an install may not connect to `address` unless the operator named its host (None:
    it may); an IPv4 address inside an IPv6 one (mapped, NAT64) is judged as itself."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or (
            ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None
        )
        if inner is not None:
            return refused_address(str(inner))
    for network, what in _REFUSED:
        if ip.version == network.version and ip in network:
            return f"a {what} address"
    return None


def _normal(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


def _host_port(registry: str) -> str:
    host, sep, port = registry.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"a registry is `host:port`, not {registry!r}")
    return f"{_normal(host)}:{int(port)}"


def _proxy_url(environ: Mapping[str, str], name: str) -> str | None:
    url = environ.get(name) or environ.get(name.lower())
    if not url:
        return None
    if "://" not in url:
        url = f"http://{url}"
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise IndexSettingError(
            f"{name}: the index proxy chains only through an http:// proxy, not {parts.scheme}://"
        )
    return url


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether NO_PROXY names `host`: `*`, the host, a domain it is in, or a network of it."""
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*":
            return True
        domain = _normal(entry.lstrip("*").lstrip("."))
        if domain and (host == domain or host.endswith(f".{domain}")):
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
