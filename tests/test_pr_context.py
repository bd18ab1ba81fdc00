"""Checkout manager and repository context on a temporary git repository made here."""

from __future__ import annotations

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from filelock import FileLock

from spice_engine.errors import InputError
from spice_engine.pr.checkout import CheckoutConfig, CheckoutError, CheckoutManager
from spice_engine.pr.diff_split import split_diff
from spice_engine.pr.repo_context import ContextOptions, RepoContextBuilder, diff_identifiers

PRICING = '''"""Prices."""

from shop.tax import apply_tax


class PriceBook:
    def __init__(self):
        self.items = {}

    def add(self, name, cents):
        self.items[name] = cents

    def total(self, names):
        return apply_tax(sum(self.items[n] for n in names))
'''
TAX = '''"""Tax."""

RATE = 0.2


def apply_tax(cents):
    return round(cents * (1 + RATE))
'''
TEST = """from shop.pricing import PriceBook


def test_total():
    book = PriceBook()
    book.add("a", 100)
    assert book.total(["a"]) == 120
"""


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def make_repo(root: Path) -> tuple[Path, str, str]:
    """A small repository, its base commit and a PR diff (two source files + a test)."""
    repo = root / "origin"
    (repo / "shop").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "shop" / "__init__.py").write_text("")
    (repo / "shop" / "pricing.py").write_text(PRICING)
    (repo / "shop" / "tax.py").write_text(TAX)
    (repo / "tests" / "test_pricing.py").write_text(TEST)
    (repo / "README.md").write_text("shop\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "shop" / "tax.py").write_text(
        TAX.replace("def apply_tax(cents):", "def apply_tax(cents, rate=RATE):").replace(
            "1 + RATE", "1 + rate"
        )
    )
    (repo / "shop" / "pricing.py").write_text(
        PRICING.replace("def total(self, names):", "def total(self, names, rate=0.2):").replace(
            "apply_tax(sum(self.items[n] for n in names))",
            "apply_tax(sum(self.items[n] for n in names), rate)",
        )
    )
    (repo / "tests" / "test_pricing.py").write_text(
        TEST
        + "\n\ndef test_rate():\n    book = PriceBook()\n    book.add('a', 100)\n    assert book.total(['a'], rate=0) == 100\n"
    )
    diff = git(repo, "diff")
    git(repo, "commit", "-qam", "rate")
    return repo, base, diff


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, str, str]:
    return make_repo(tmp_path)


def test_checkout_uses_a_stable_path_and_the_base_commit(
    tmp_path: Path, origin: tuple[Path, str, str]
) -> None:
    repo, base, _ = origin
    head = git(repo, "rev-parse", "HEAD").strip()
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    with manager.checkout("acme/shop", str(repo), base) as path:
        first = path
        assert git(path, "rev-parse", "HEAD").strip() == base
        assert "rate=RATE" not in (path / "shop" / "tax.py").read_text()
        (path / ".git" / "spice-aider-tags").mkdir()
        (path / "stray.txt").write_text("left by a job")
    with manager.checkout("acme/shop", str(repo), head) as path:
        assert path == first == tmp_path / "cache" / "repos" / "acme__shop"
        assert "rate=RATE" in (path / "shop" / "tax.py").read_text()
        assert not (path / "stray.txt").exists()
        assert (path / ".git" / "spice-aider-tags").is_dir()  # the tag cache survives


def test_checkout_rejects_bad_sha_and_reports_busy_clone(
    tmp_path: Path, origin: tuple[Path, str, str]
) -> None:
    repo, base, _ = origin
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache", lock_timeout_s=0))
    with pytest.raises(InputError):
        manager.checkout("acme/shop", str(repo), "not-a-sha").__enter__()
    with pytest.raises(CheckoutError, match="failed"):
        manager.checkout("acme/shop", str(repo), "f" * 40).__enter__()
    path = manager.path_for("acme/shop")
    manager.locks.mkdir(parents=True, exist_ok=True)
    with (
        FileLock(str(manager.locks / f"{path.name}.lock")),
        pytest.raises(CheckoutError, match="busy"),
    ):
        manager.checkout("acme/shop", str(repo), base).__enter__()


def test_disk_budget_evicts_least_recently_used(
    tmp_path: Path, origin: tuple[Path, str, str]
) -> None:
    repo, base, _ = origin
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache", disk_budget_mb=1000))
    for key in ("a/one", "a/two"):
        with manager.checkout(key, str(repo), base):
            pass
    size_mb = (
        sum(f.stat().st_size for f in manager.path_for("a/one").rglob("*") if f.is_file()) / 2**20
    )
    manager.config.disk_budget_mb = size_mb * 1.5
    with manager.checkout("a/three", str(repo), base):
        pass
    names = sorted(p.name for p in manager.clones())
    assert "a__three" in names
    assert "a__one" not in names  # the oldest went first
    assert len(names) <= 2


def test_context_builds_map_files_and_identifiers(
    tmp_path: Path, origin: tuple[Path, str, str]
) -> None:
    repo, base, diff = origin
    split = split_diff(diff)
    assert "apply_tax" in diff_identifiers(split, 20)
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    builder = RepoContextBuilder(ContextOptions(max_file_tokens=200))
    with manager.checkout("acme/shop", str(repo), base) as path:
        ctx = builder.build(path, split, base)
        assert (path / ".git" / "spice-aider-tags").is_dir(), "the tag cache is out of the tree"
        assert not list(path.glob(".aider.tags.cache.v*"))
        again = builder.build(path, split, base)
    assert [f.path for f in ctx.files] == [
        "shop/pricing.py",
        "shop/tax.py",
        "tests/test_pricing.py",
    ]
    tax = next(f for f in ctx.files if f.path == "shop/tax.py")
    assert not tax.excerpt and "def apply_tax(cents):" in tax.text  # text at the base commit
    assert again.repo_map == ctx.repo_map
    assert ctx.seconds > 0


def test_large_file_becomes_enclosing_definitions(tmp_path: Path) -> None:
    repo = tmp_path / "big"
    repo.mkdir()
    funcs = "".join(
        f"def helper_{i}(x):\n    y = x + {i}\n    return y * 2\n\n\n" for i in range(300)
    )
    (repo / "big.py").write_text(funcs)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "big.py").write_text(funcs.replace("    y = x + 150\n", "    y = x + 151\n"))
    split = split_diff(git(repo, "diff"))
    git(repo, "checkout", "-q", "--", ".")
    ctx = RepoContextBuilder(ContextOptions(max_file_tokens=300, map_tokens=0)).build(repo, split)
    (big,) = ctx.files
    assert big.excerpt and big.tokens <= 300
    assert "def helper_150(x):" in big.text
    assert "def helper_10(x):" not in big.text


def test_checkout_errors_hide_url_credentials(tmp_path: Path) -> None:
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    source = "https://x-access-token:ghs_SECRET@127.0.0.1:9/acme/gone.git"  # refused at once
    with pytest.raises(CheckoutError) as info:
        manager.checkout("acme/gone", source, "a" * 40).__enter__()
    assert "ghs_SECRET" not in str(info.value)


def test_a_clone_sends_the_auth_header_and_never_stores_it(tmp_path: Path) -> None:
    seen: list[str | None] = []

    class Remote(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(404)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Remote)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    source = f"http://127.0.0.1:{server.server_address[1]}/acme/lib.git"
    header = "Authorization: Basic c2VjcmV0LXRva2Vu"
    try:
        with pytest.raises(CheckoutError) as info:
            manager.checkout("acme/lib", source, "a" * 40, header).__enter__()
    finally:
        server.shutdown()
    assert seen and seen[0] == "Basic c2VjcmV0LXRva2Vu"
    assert "c2VjcmV0" not in str(info.value)
    assert not manager.path_for("acme/lib").exists()  # nothing half-cloned stays behind
