"""Localization against a known fix: which functions a patch changes and what points at them."""

from __future__ import annotations

import time

from spice_engine.issue_signals import extract_signals
from spice_engine.issue_signals.facts import frames
from spice_engine.issue_signals.fix_patch import fix_location

FENCE = "```"

# git writes the enclosing `def` in the hunk header without its indentation; the hunk adds a new
# method after `configure`'s body, and changes `existing` further down.
NEW_METHOD_PATCH = """--- a/pkg/conf.py
+++ b/pkg/conf.py
@@ -10,5 +10,9 @@ def configure(self, **options):
         self._wrapped = holder
         self.ready = True
{BLANK}
+    @staticmethod
+    def _add_prefix(value):
+        return "/" + value
+
     def existing(self):
-        return self.value
+        return self._add_prefix(self.value)
""".replace("{BLANK}", " ")

TWO_FRAME_PATCH = """--- a/pkg/core.py
+++ b/pkg/core.py
@@ -20,1 +20,1 @@ def outer(x):
-    return inner(x)
+    return inner(x or 0)
"""


def test_a_hunk_header_function_ends_at_a_sibling_definition() -> None:
    fix = fix_location(NEW_METHOD_PATCH)
    assert fix is not None
    assert "configure" not in fix.functions  # the new method is added after its body
    assert fix.functions == {"existing"}
    assert fix.new_functions == {"_add_prefix"}
    assert (14, "existing") in fix.owners["pkg/conf.py"]
    assert (12, None) in fix.owners["pkg/conf.py"]  # the new method follows line 12


def test_a_hunk_header_function_keeps_its_shallower_body_lines() -> None:
    patch = """--- a/pkg/admin.py
+++ b/pkg/admin.py
@@ -398,3 +398,5 @@ def display(value, field):
         return number(value)
     elif isinstance(field, FileField):
+        return link(value)
+    elif isinstance(field, JSONField):
         return link(value)
"""
    fix = fix_location(patch)
    assert fix is not None and fix.functions == {"display"}


def test_a_new_function_is_pointed_at_only_by_its_exact_name() -> None:
    partial = extract_signals(
        "Prefix", "The `add_prefix` step is missing.", fix_patch=NEW_METHOD_PATCH
    )
    assert partial.localization.function == "none"
    exact = extract_signals("Prefix", "Please add `_add_prefix`.", fix_patch=NEW_METHOD_PATCH)
    assert exact.localization.function == "keywords"
    assert exact.localization.file == "none"  # a function yet to be written has no file yet


def test_frames_keep_text_order_and_their_traceback() -> None:
    text = (
        'Traceback (most recent call last):\n  File "/x/pkg/a.py", line 1, in f\n'
        "ValueError\n\nDuring handling...\n"
        'Traceback (most recent call last):\n  File "/x/pkg/b.py", line 2, in g\n'
        "/x/pkg/c.py in h(x)\n"
    )
    found = frames(text)
    assert [(f.function, f.traceback) for f in found] == [("f", 1), ("g", 2), ("h", 2)]


def test_a_traceback_points_at_the_function_that_failed_not_its_callers() -> None:
    trace = (
        f"{FENCE}\nTraceback (most recent call last):\n"
        '  File "/venv/site-packages/pkg/core.py", line 21, in outer\n    return inner(x)\n'
        '  File "/venv/site-packages/pkg/core.py", line 40, in inner\n    return 1 / x\n'
        f"ZeroDivisionError: division by zero\n{FENCE}\n"
    )
    caller = extract_signals("Crash", trace, fix_patch=TWO_FRAME_PATCH).localization
    assert caller.file == "stacktrace"
    assert caller.function == "none"  # outer only called the failing inner
    failing = trace.replace("in inner", "in helper").replace(", in outer", ", in inner")
    swapped = TWO_FRAME_PATCH.replace("def outer(x)", "def helper(x)")
    assert extract_signals("Crash", failing, fix_patch=swapped).localization.function == (
        "stacktrace"
    )
    # Frames of other packages below the project's own do not hide the failing function.
    deeper = trace.replace(
        "ZeroDivisionError",
        '  File "/venv/site-packages/numpy/core.py", line 5, in wrap\n    f()\nZeroDivisionError',
    )
    inner_fix = TWO_FRAME_PATCH.replace("def outer(x)", "def inner(x)")
    assert extract_signals("Crash", deeper, fix_patch=inner_fix).localization.function == (
        "stacktrace"
    )


def test_a_plain_word_called_in_the_example_is_usage_not_a_pointer() -> None:
    patch = TWO_FRAME_PATCH.replace("def outer(x)", "def autoscale(x)")
    body = f"{FENCE}python\nimport pkg\nplot = pkg.make()\nplot.autoscale()\n{FENCE}\nIt fails."
    assert extract_signals("Fails", body, fix_patch=patch).localization.function == "none"
    compound = TWO_FRAME_PATCH.replace("def outer(x)", "def check_array(x)")
    body = body.replace("plot.autoscale()", "pkg.check_array(plot)")
    assert extract_signals("Fails", body, fix_patch=compound).localization.function == "keywords"


def test_code_pasted_into_a_sentence_is_not_the_function_spoken_of() -> None:
    patch = TWO_FRAME_PATCH.replace("def outer(x)", "def serialize(x)")
    pasted = "The migration holds ('id', models.AutoField(primary_key=True, serialize=False))."
    assert extract_signals("Bad path", pasted, fix_patch=patch).localization.function == "none"
    spoken = "Serialization of nested classes drops the outer class."
    assert extract_signals("Bad path", spoken, fix_patch=patch).localization.function == (
        "natural_language"
    )


def test_a_line_of_the_fixed_file_points_at_its_function() -> None:
    body = "At pkg/core.py, line 19, I think you must also pass a default here."
    loc = extract_signals("Crash", body, fix_patch=TWO_FRAME_PATCH).localization
    assert (loc.file, loc.function, loc.line) == ("keywords", "natural_language", "keywords")
    far = extract_signals("Crash", body.replace("19", "190"), fix_patch=TWO_FRAME_PATCH)
    assert far.localization.function == "none"


def test_a_huge_fix_against_a_long_issue_stays_fast() -> None:
    removed = "".join(f"-    def f{i}(self):\n" for i in range(10_000))
    added = "".join(f"+    def f{i}(self, y):\n" for i in range(10_000))
    patch = f"--- a/p/x.py\n+++ b/p/x.py\n@@ -1,10000 +1,10000 @@\n{removed}{added}"
    frame = '  File "/v/p/x.py", line {0}, in f{0}\n'
    body = (
        "Traceback (most recent call last):\n"
        + "".join(frame.format(i) for i in range(0, 20_000, 7))
        + "".join(f"See p/x.py line {i} and `f_{i}`. " for i in range(0, 20_000, 13))
    )
    started = time.process_time()
    loc = extract_signals("f1 breaks", body, fix_patch=patch).localization
    assert time.process_time() - started < 2.0
    assert loc.file == "stacktrace" and loc.line == "stacktrace"
