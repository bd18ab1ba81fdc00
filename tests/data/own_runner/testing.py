"""calc's test runner (what `bin/test` calls): every `test_*` function of the given files."""

import runpy
import sys


def test(*paths, verbose=False, kw=()):
    ok = True
    for path in paths:
        found = {k: v for k, v in runpy.run_path(path).items() if k.startswith("test_")}
        found = {k: v for k, v in found.items() if not kw or any(w in k for w in kw)}
        sys.stdout.write(f"{path}[{len(found)}]")
        for name, func in found.items():
            if verbose:
                sys.stdout.write(f"\n{name} ")
            try:
                func()
            except AssertionError:
                sys.stdout.write("F")
                ok = False
            except Exception:  # noqa: BLE001 - any other error is the test's E
                sys.stdout.write("E")
                ok = False
            else:
                sys.stdout.write("ok" if verbose else ".")
        sys.stdout.write("\n")
    print("tests finished" if ok else "DO *NOT* COMMIT!")
    return ok
