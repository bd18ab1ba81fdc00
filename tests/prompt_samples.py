"""Sample variables for the PR prompts, built by the pipeline's own PromptParts."""

from __future__ import annotations

from spice_engine.dimensions import voted_separately
from spice_engine.pr.prompt_fit import PromptParts
from spice_engine.pr.repo_context import FileText

_PARTS = PromptParts(
    task="Title: Crash\n\nparse_config('') raises IndexError.",
    gold_patch="--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    test_patch="--- a/test_x.py\n+++ b/test_x.py\n@@ -1 +1 @@\n-a\n+b\n",
    judged_against="linked issue #1",
    context_mode="checkout",
    repo_map="x.py:\n│def parse_config(text):",
    files=[FileText(path="x.py", kind="source", text="def parse_config(text): ...", tokens=9)],
    evidence="tests call `parse_config`",
    survivors="1 of 4 small wrong variants pass:\n- `< b` → `<= b` in `parse()`",
    trimmed=["repository map cut"],
)

EXTRA_SAMPLES: dict[str, dict[str, object]] = {
    str(d.prompt_id): _PARTS.variables(d.answer) for d in voted_separately("pull_request")
}
EXTRA_SAMPLES["catching_test"] = {
    "task": "clamp() ignores lo",
    "gold_patch": "--- a/clamp.py\n+++ b/clamp.py\n@@ -1 +1,2 @@\n+    if x < lo:\n",
    "test_patch": "--- a/tests/t.py\n+++ b/tests/t.py\n@@ -0,0 +1 @@\n+def test(): ...\n",
    "path": "clamp.py",
    "code": "def clamp(x, lo, hi):\n    if x > hi:\n        return hi",
    "wrong_fix": "-    if x > hi:\n+    if not (x > hi):\n",
    "test_path": "tests/test_spice_catches_survivor.py",
    "kind": "a whole pytest test module: imports and one or more test functions",
    "appended": False,
}
