"""Reproduction signal: the reporter's runnable code versus quotes of the project's own code."""

from __future__ import annotations

from spice_engine.issue_signals import extract_signals

FENCE = "```"


def test_a_quoted_method_body_is_not_a_reproduction() -> None:
    body = (
        "The tag renders like this:\n\n"
        f"{FENCE}\ndef render(self, context):\n    url = self.url(context)\n    return url\n{FENCE}\n"
        "It ignores the prefix."
    )
    assert extract_signals("Prefix ignored", body).reproduction not in ("full", "partial")


def test_an_elided_excerpt_of_a_class_is_not_a_reproduction() -> None:
    body = (
        "Look at the implementation:\n\n"
        f"{FENCE}\nclass BoundField:\n    ...\n    def subwidgets(self):\n"
        f"        return [w for w in self.widgets()]\n{FENCE}\n"
    )
    assert extract_signals("Wrong id", body).reproduction not in ("full", "partial")


def test_the_reporters_own_test_method_is_a_reproduction() -> None:
    body = (
        "Add this test:\n\n"
        f"{FENCE}\ndef test_wrong_related(self):\n    with self.assertNumQueries(3):\n"
        f"        p = list(Pool.objects.all())\n    self.assertEqual(p[0].x, 1)\n{FENCE}\n"
    )
    assert extract_signals("Wrong object", body).reproduction == "full"


def test_a_file_of_the_reporter_starting_with_imports_is_a_reproduction() -> None:
    body = (
        "Let say we have this code in models.py:\n\n"
        f"{FENCE}\nfrom django.db import models\nclass Item(models.Model):\n"
        f"    status = models.CharField(default=Status.GOOD)\n{FENCE}\n"
    )
    assert extract_signals("Enum default", body).reproduction == "full"
    excerpt = body.replace("from django.db import models\n", "")
    assert extract_signals("Enum default", excerpt).reproduction not in ("full", "partial")


def test_a_lone_closing_bracket_is_not_a_statement() -> None:
    body = "It returns a list built like\n\n        ]\n\nwhich is wrong."
    assert extract_signals("List", body).reproduction not in ("full", "partial")


def test_an_interactive_session_with_continuation_dots_is_still_a_reproduction() -> None:
    body = f"{FENCE}\n>>> for x in self_check():\n...     print(x)\n...\n1\n{FENCE}\n"
    assert extract_signals("Loop", body).reproduction == "full"
