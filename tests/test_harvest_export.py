"""Export: SWE-bench field names and types, loadable by `datasets` and pyarrow; filters; which
rows are exported; decontamination's public lists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.harvest.decontam import PUBLIC_IDS, known_ids, parse_date, read_ids
from app.harvest.export import NOT_VALIDATED, ExportFilter, select_records, write
from app.harvest.label import make_labeller
from app.harvest.runner import HarvestContext, harvest_repo, thread_dispatch
from app.harvest.store import HarvestStore, StoredInstance
from app.settings import Settings
from tests.fakes.github_server import FakeGitHub
from tests.fakes.harvest_history import History, seed_history
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import fake_model, fake_source, sqlite_store

SWEBENCH_STR_FIELDS = [
    "instance_id",
    "repo",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "environment_setup_commit",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
]


def _arrow() -> Any:
    """pyarrow (and so `datasets`), or a skip saying why it cannot be imported here."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        pytest.skip(f"pyarrow cannot be imported in this environment: {exc}")
    return pq


def _shape(value: Any) -> Any:
    """The Arrow-relevant shape of a JSON value (None fits any shape)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        shapes = {json.dumps(_shape(v), sort_keys=True) for v in value if v is not None}
        return ["list", sorted(shapes)]
    return None if value is None else type(value).__name__


def _merge(a: Any, b: Any) -> Any:
    """Unify two shapes; raises when Arrow could not infer one column type for both."""
    if a is None or b is None:
        return a if b is None else b
    if isinstance(a, dict) and isinstance(b, dict):
        assert set(a) == set(b), f"different keys: {set(a) ^ set(b)}"
        return {k: _merge(a[k], b[k]) for k in a}
    if isinstance(a, list) and isinstance(b, list):
        items = sorted(set(a[1]) | set(b[1]))
        assert len(items) <= 1 or {"int", "float"} >= {json.loads(i) for i in items}, items
        return ["list", items[:1]]
    assert a == b or {a, b} == {"int", "float"}, f"{a} vs {b}"
    return a


@pytest.fixture
def labelled(tmp_path: Path, fake_openai: FakeOpenAI) -> Iterator[tuple[HarvestStore, History]]:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=16)
        store = sqlite_store(tmp_path)
        source = fake_source(gh)
        labeller = make_labeller(Settings(votes=3), fake_model(fake_openai.api_base))
        ctx = HarvestContext(source=source, store=store, labeller=labeller)
        with ThreadPoolExecutor(4) as pool:
            harvest_repo(
                store, source, history.repo, thread_dispatch(ctx, history.repo, pool, True)
            )
        yield store, history


def test_jsonl_has_swebench_fields_and_loads_with_datasets(
    labelled: tuple[HarvestStore, History],
    tmp_path: Path,
    swebench_instances: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store, history = labelled
    out = tmp_path / "out.jsonl"
    assert select_records(store.instances(), ExportFilter()) == []  # none validated yet
    records = select_records(store.instances(), ExportFilter(include_unvalidated=True))
    write(records, out, "swebench-jsonl")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(history.kept)
    for row in rows:
        assert list(row)[: len(SWEBENCH_STR_FIELDS)] == SWEBENCH_STR_FIELDS
        assert all(isinstance(row[f], str) for f in SWEBENCH_STR_FIELDS)
        # Unvalidated: a fail-to-pass test no log can pass, so it never grades as resolved.
        assert json.loads(row["FAIL_TO_PASS"]) == [NOT_VALIDATED]
        assert row["spice"]["validation"] is None
        spice = row["spice"]
        assert spice["labelled"] is True, spice["errors"]
        for dim in ("clarity", "tests", "difficulty"):
            assert spice[dim]["score"] in (0, 1, 2, 3)
            assert len(spice[dim]["votes"]) == 3 and len(spice[dim]["rationales"]) == 3
            assert spice[dim]["agreement"] in ("unanimous", "majority", "split")
        assert spice["model"] == "openai/fake" and spice["prompt_versions"]
        assert spice["tokens_in"] > 0
    # The real SWE-bench rows share every field they have with ours, with the same types.
    for real in swebench_instances[:50]:
        for field in set(real) & set(SWEBENCH_STR_FIELDS):
            assert isinstance(real[field], str)

    # Every row has one shape: what lets `datasets` (Arrow) infer a single schema.
    shape = None
    for row in rows:
        shape = _merge(shape, _shape(row))
    _arrow()
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    ds = datasets.load_dataset(
        "json", data_files=str(out), split="train", cache_dir=str(tmp_path / "hf")
    )
    assert ds.num_rows == len(history.kept)
    assert set(SWEBENCH_STR_FIELDS) <= set(ds.column_names)
    for field in SWEBENCH_STR_FIELDS:
        if field != "created_at":  # pyarrow may read ISO times as timestamps, SWE-bench too
            assert ds.features[field].dtype == "string", field
    assert ds[0]["spice"]["clarity"]["score"] in (0, 1, 2, 3)


def test_parquet_loads_with_pyarrow(labelled: tuple[HarvestStore, History], tmp_path: Path) -> None:
    pq = _arrow()
    store, history = labelled
    out = tmp_path / "out.parquet"
    write(select_records(store.instances(), ExportFilter(include_unvalidated=True)), out, "parquet")
    table = pq.read_table(out)
    assert table.num_rows == len(history.kept)
    assert set(SWEBENCH_STR_FIELDS) <= set(table.column_names)
    assert str(table.schema.field("patch").type) == "string"
    assert table.column("spice").to_pylist()[0]["difficulty"]["score"] in (0, 1, 2, 3)


VALID = {"status": "valid", "python": "3.11"}
F2P = json.dumps(["tests/test_a.py::test_fix"])


def _row(iid: str, created: str, clarity: int, tests: int, agreement: str) -> StoredInstance:
    dim = {"score": 0, "agreement": agreement, "votes": [0, 0, 0]}
    return StoredInstance(
        {"instance_id": iid, "created_at": created, "FAIL_TO_PASS": F2P},
        {
            "labelled": True,
            "clarity": dim | {"score": clarity},
            "tests": dim | {"score": tests},
            "difficulty": dim | {"score": 2},
            "validation": VALID,
        },
    )


def test_filters_verified_like_agreement_and_after() -> None:
    rows = [
        _row("a__b-1", "2023-05-01T00:00:00Z", 0, 1, "unanimous"),
        _row("a__b-2", "2024-05-01T00:00:00Z", 2, 0, "majority"),
        _row("a__b-3", "2024-06-01T00:00:00Z", 1, 3, "unanimous"),
        _row("a__b-4", "2024-07-01T00:00:00Z", 1, 1, "split"),
        _row("a__b-5", "2024-08-01T00:00:00Z", 0, 0, "majority"),
        StoredInstance(
            {"instance_id": "a__b-6", "created_at": "2024-09-01T00:00:00Z", "FAIL_TO_PASS": F2P},
            {"validation": VALID},
        ),
    ]

    def ids(**kw: Any) -> list[str]:
        return [r["instance_id"] for r in select_records(rows, ExportFilter(**kw))]

    assert ids() == [f"a__b-{i}" for i in range(1, 7)]
    assert ids(verified_like=True) == ["a__b-1", "a__b-4", "a__b-5"]
    assert ids(min_agreement="majority") == ["a__b-1", "a__b-2", "a__b-3", "a__b-5"]
    assert ids(min_agreement="unanimous") == ["a__b-1", "a__b-3"]
    assert ids(after=parse_date("2024-06-01")) == ["a__b-4", "a__b-5", "a__b-6"]
    assert ids(exclude_ids={"a__b-5"}, verified_like=True) == ["a__b-1", "a__b-4"]
    unlabelled = select_records(rows[-1:], ExportFilter())[0]["spice"]
    assert unlabelled["labelled"] is False and unlabelled["clarity"]["score"] is None
    verified = select_records(rows, ExportFilter(verified_like=True))
    assert {r["difficulty"] for r in verified} == {"1-4 hours"}  # SWE-bench Verified's string
    assert verified[0]["spice"]["validation"]["status"] == "valid"


def test_only_validated_rows_with_a_fail_to_pass_test_are_exported() -> None:
    base = _row("a__b-1", "2024-01-01T00:00:00Z", 0, 0, "unanimous")
    failed = StoredInstance(
        {**base.instance, "instance_id": "a__b-2"},
        {**base.labels, "validation": {"status": "environment_failed"}},
    )
    empty = StoredInstance(
        {**base.instance, "instance_id": "a__b-3", "FAIL_TO_PASS": "[]"}, base.labels
    )
    never = StoredInstance({**base.instance, "instance_id": "a__b-4"}, {"labelled": True})
    rows = [base, failed, empty, never]
    assert [r["instance_id"] for r in select_records(rows, ExportFilter())] == ["a__b-1"]
    every = select_records(rows, ExportFilter(include_unvalidated=True))
    assert len(every) == 4
    for record in every:
        assert json.loads(record["FAIL_TO_PASS"]) != []  # never an empty list
    assert json.loads(every[0]["FAIL_TO_PASS"]) == ["tests/test_a.py::test_fix"]


def test_json_out_is_one_array_and_parquet_to_json_is_refused(tmp_path: Path) -> None:
    rows = [_row("a__b-1", "2024-01-01T00:00:00Z", 0, 0, "unanimous")]
    out = tmp_path / "x.json"
    write(select_records(rows, ExportFilter()), out, "swebench-jsonl")
    assert [r["instance_id"] for r in json.loads(out.read_text())] == ["a__b-1"]
    done = CliRunner().invoke(
        cli, ["export", "--out", str(tmp_path / "y.json"), "--format", "parquet"],
        env={"SPICE_DATA_DIR": str(tmp_path / "d")},
    )  # fmt: skip
    assert done.exit_code == 1 and "parquet" in done.output
    assert not (tmp_path / "y.json").exists()


def test_public_ids_list_matches_the_shared_instances(
    swebench_instances: list[dict[str, Any]], tmp_path: Path
) -> None:
    public = read_ids(PUBLIC_IDS)
    assert public == {i["instance_id"] for i in swebench_instances}
    user = tmp_path / "mine.jsonl"
    user.write_text('{"instance_id": "acme__widgets-2"}\n')
    assert known_ids([user]) == public | {"acme__widgets-2"}
    assert known_ids([user], public=False) == {"acme__widgets-2"}


def test_public_lists_may_name_pull_requests(tmp_path: Path) -> None:
    given = tmp_path / "seen.txt"
    given.write_text(
        "# from a leaderboard\nsphinx-doc/sphinx#7975\n"
        "https://github.com/psf/requests/pull/1537\ndjango__django-11099\n"
        '{"repo": "pallets/flask", "pull_number": 4045}\n'
    )
    assert read_ids(given) == {
        "sphinx-doc__sphinx-7975",
        "psf__requests-1537",
        "django__django-11099",
        "pallets__flask-4045",
    }
