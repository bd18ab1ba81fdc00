"""A one-file program built with its language's real compiler, for the probes' tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def _rustc() -> str | None:
    return shutil.which("rustc") or next(
        (str(p) for p in [Path.home() / ".cargo/bin/rustc"] if p.exists()), None
    )


def build_program(
    grammar: str, folder: Path, name: str, flags: tuple[str, ...] = ()
) -> list[str] | None:
    """Builds `folder/name` (Rust's `flags` given to rustc); the command running it (None: this
    machine lacks the compiler)."""
    source = str(folder / name)
    if grammar == "go":
        go = shutil.which("go") or "/usr/local/go/bin/go"
        if not Path(go).exists():
            return None
        env = {"HOME": str(folder), "GOCACHE": str(folder / "cache"), "GOPATH": str(folder / "p")}
        env["PATH"] = "/usr/bin:/bin"
        subprocess.run([go, "build", "-o", str(folder / "prog"), source], check=True, env=env)
        return [str(folder / "prog")]
    if grammar == "rust":
        if (rustc := _rustc()) is None:
            return None
        subprocess.run([rustc, *flags, "-o", str(folder / "prog"), source], check=True)
        return [str(folder / "prog")]
    if grammar in ("c", "cpp"):
        compiler = shutil.which("gcc" if grammar == "c" else "g++")
        if compiler is None:
            return None
        out = str(folder / "prog")
        subprocess.run([compiler, "-Wall", "-Werror", "-o", out, source], check=True)
        return [out]
    if grammar == "java":
        if shutil.which("javac") is None:
            return None
        subprocess.run(["javac", "-Werror", "-d", str(folder), source], check=True)
        return ["java", "-cp", str(folder), "Main"]
    return ["node", source] if shutil.which("node") else None
