"""Benchmark: PR context build (checkout + RepoMap + prompt fit) on real sdists, cold vs warm.

Downloads requests, flask and django as source distributions from the package index
(`pip download --no-binary :all: --no-deps`), commits each into a temporary git repository, and
builds the PR context for two realistic changes (two source files plus a test each):

- baseline: the straightforward way, per PR: a fresh temporary clone + a new RepoMap;
- ours cold: the stable clone under a cache dir, first PR (empty tag cache);
- ours warm: the same worker, second PR (tag cache on disk, RepoMap kept in memory);
- ours warm, new process: a new worker, second PR (tag cache on disk only).

Each mode runs in its own spawned process so its peak memory is its own.
Usage: python benchmarks/context_build.py [--sdist-dir DIR] [--only django] [--cap 24000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

Edit = tuple[str, str, str]
# Two PRs per project; each changes two source files and adds a test: (path, old, new) edits.
CHANGES: dict[str, list[list[Edit]]] = {
    project: [[(p, old, new) for p, old, new in pr] for pr in prs]
    for project, prs in json.loads(
        (ROOT / "benchmarks" / "context_build_changes.json").read_text()
    ).items()
}


def git(cwd: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args]
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


def download(packages: list[str], dest: Path) -> dict[str, Path]:
    from spice_engine.redaction import redacted_excerpt

    cmd = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
    proc = subprocess.run([*cmd, "-d", str(dest), *packages], capture_output=True, text=True)
    if proc.returncode != 0:
        # An index URL in the environment may carry credentials: redacted before the cut.
        why = redacted_excerpt(proc.stderr, tail=2000)
        sys.exit(f"sdist download failed (pip exit {proc.returncode}):\n{why}")
    return find_sdists(packages, dest)


def find_sdists(packages: list[str], where: Path) -> dict[str, Path]:
    found = {}
    for pkg in packages:
        matches = sorted(where.glob(f"{pkg}-*.tar.gz"))
        if not matches:
            sys.exit(f"no sdist for {pkg} in {where}")
        found[pkg] = matches[-1]
    return found


def make_project(pkg: str, sdist: Path, work: Path) -> tuple[Path, str, list[str]]:
    """Unpack the sdist into a git repository; return it, its base commit and two PR diffs."""
    repo = work / "origin" / pkg
    repo.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "unpack", filter="data")
    (top,) = list((work / "unpack").iterdir())
    for item in top.iterdir():
        shutil.move(str(item), repo / item.name)
    shutil.rmtree(work / "unpack")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{sdist.name}")
    base = git(repo, "rev-parse", "HEAD").strip()
    diffs = []
    for edits in CHANGES[pkg]:
        for rel, old, new in edits:
            path = repo / rel
            text = path.read_text()
            if old not in text:
                sys.exit(f"{pkg}: the benchmark edit no longer applies to {rel} ({sdist.name})")
            path.write_text(text.replace(old, new, 1))
        diffs.append(git(repo, "diff"))
        git(repo, "checkout", "-q", "--", ".")
    return repo, base, diffs


def _prepare(diff: str, base: str, path: Path, builder: Any, cap: int) -> int:
    from spice_engine.pr.models import PROptions, PullRequest
    from spice_engine.pr.pipeline import prepare_pr
    from spice_engine.pr.repo_context import ContextOptions

    opts = PROptions(context=ContextOptions(max_prompt_tokens=cap))
    pr = PullRequest(title="Benchmark change", body="", diff=diff, base_sha=base)
    prepared = prepare_pr(pr, opts, repo_path=path, builder=builder)
    tokens = max(prepared.report.prompt_tokens.values())
    if tokens > cap:
        raise SystemExit(f"prompt of {tokens} tokens exceeds the cap {cap}")
    return tokens


def run_mode(
    mode: str, origin: str, base: str, diffs: list[str], cache: str, cap: int, out: Any
) -> None:
    """One measurement process: [(label, seconds, tokens)] and the process's peak RSS in MB."""
    from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
    from spice_engine.pr.repo_context import RepoContextBuilder
    from spice_engine.pr.tokens import count_tokens

    count_tokens("warm up the tokenizer")  # loaded once per worker, not per PR
    import aider.repomap  # noqa: F401 - imported once per worker, not per PR

    rows = []
    if mode == "baseline":
        for i, diff in enumerate(diffs):
            started = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp:
                git(Path(tmp), "clone", "-q", "--no-checkout", origin, "repo")
                git(Path(tmp) / "repo", "checkout", "-q", "--detach", base)
                tokens = _prepare(diff, base, Path(tmp) / "repo", RepoContextBuilder(), cap)
            rows.append((f"PR{i + 1}", time.perf_counter() - started, tokens))
    else:
        manager = CheckoutManager(CheckoutConfig(cache_dir=Path(cache)))
        builder = RepoContextBuilder()
        todo = list(enumerate(diffs)) if mode == "ours" else [(1, diffs[1])]
        for i, diff in todo:
            started = time.perf_counter()
            with manager.checkout("bench/" + Path(origin).name, origin, base) as path:
                tokens = _prepare(diff, base, path, builder, cap)
            rows.append((f"PR{i + 1}", time.perf_counter() - started, tokens))
    out.put((rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def measure(mode: str, *args: Any) -> tuple[list[tuple[str, float, int]], float]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=run_mode, args=(mode, *args, queue))
    proc.start()
    result = queue.get()
    proc.join()
    rows, peak = result
    return rows, peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sdist-dir", type=Path, help="Use sdists already downloaded here.")
    parser.add_argument("--only", action="append", choices=sorted(CHANGES))
    parser.add_argument("--cap", type=int, default=24_000)
    args = parser.parse_args()
    packages = args.only or list(CHANGES)
    with tempfile.TemporaryDirectory(prefix="spice-bench-") as tmp:
        work = Path(tmp)
        sdists = (
            find_sdists(packages, args.sdist_dir)
            if args.sdist_dir
            else download(packages, work / "sdists")
        )
        print(
            f"{'project':9} {'files':>5} {'mode':22} {'PR':4} {'seconds':>8} {'peak MB':>8} {'tokens':>7}"
        )
        for pkg in packages:
            repo, base, diffs = make_project(pkg, sdists[pkg], work)
            files = len(git(repo, "ls-files").splitlines())
            cache = str(work / "cache" / pkg)
            results = {}
            for mode, label in (
                ("baseline", "baseline (fresh clone)"),
                ("ours", "ours cold→warm"),
                ("ours-new-process", "ours warm, new process"),
            ):
                rows, peak = measure(mode, str(repo), base, diffs, cache, args.cap)
                for pr, seconds, tokens in rows:
                    shown = (
                        label
                        if mode != "ours"
                        else ("ours cold" if pr == "PR1" else "ours warm (same worker)")
                    )
                    print(
                        f"{pkg:9} {files:5} {shown:22} {pr:4} {seconds:8.2f} {peak:8.0f} {tokens:7}"
                    )
                    results[(mode, pr)] = seconds
            base_mean = (results[("baseline", "PR1")] + results[("baseline", "PR2")]) / 2
            warm = results[("ours", "PR2")]
            print(
                f"{pkg:9} baseline mean {base_mean:.2f}s / warm {warm:.2f}s = {base_mean / warm:.1f}x faster"
                f" (new-process warm {base_mean / results[('ours-new-process', 'PR2')]:.1f}x); cap {args.cap}"
            )


if __name__ == "__main__":
    main()
