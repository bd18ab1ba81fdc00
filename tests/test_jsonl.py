"""JSON Lines as every command reads them: a bad line is one error naming its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.errors import InputError
from spice_engine.jsonl import instances, numbered_objects


def test_blank_lines_are_skipped_and_lines_keep_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"instance_id": "a"}\n\n{"instance_id": "b", "repo": "o/n"}\n')
    assert [n for n, _ in numbered_objects(path)] == [1, 3]
    assert [r["instance_id"] for r in instances(path)] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"instance_id": "a"}\n{oops\n', "rows.jsonl:2: not JSON ("),
        ("[1, 2]\n", "rows.jsonl:1: not a JSON object"),
        ('{"instance_id": "a"}\n', "rows.jsonl:1: needs instance_id, repo (no repo)"),
    ],
)
def test_a_bad_line_is_one_error_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        instances(path, ("instance_id", "repo"))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.jsonl"):
        numbered_objects(tmp_path / "missing.jsonl")
