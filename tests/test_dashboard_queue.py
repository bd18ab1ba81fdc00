"""The split-votes queue lists decisions still worth a maintainer's look: not those a
maintainer has settled with a label since."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from app.settings import Settings
from app.store.human_labels import record_human_label
from app.store.models import Assessment
from app.store.opening import open_store
from app.web.dashboard.queries import split_votes

REPO = "octo-org/widgets"


def decided(session: Session, number: int, votes: list[int], key: str) -> None:
    split = {"dimension": "clarity", "score": max(votes), "votes": votes}
    session.add(
        Assessment(
            kind="issue",
            repo=REPO,
            number=number,
            input_hash=key,
            labels=[],
            votes=[split],
            rationales=[],
            model="m",
            prompt_version="p",
            result={},
        )
    )
    session.flush()


def test_a_corrected_item_leaves_the_queue_until_it_is_voted_split_again(tmp_path: Path) -> None:
    sessions = open_store(Settings(data_dir=tmp_path)).sessions
    with sessions.begin() as session:
        decided(session, 7, [1, 3, 3], "a")
        decided(session, 8, [0, 2, 2], "b")
    with sessions.begin() as session:
        assert [(r.number, d) for r, d in split_votes(session, REPO, 10)] == [
            (8, "clarity"),
            (7, "clarity"),
        ]
        assert record_human_label(session, REPO, 7, "clarity", 1, "maintainer")
    with sessions.begin() as session:
        assert [r.number for r, _ in split_votes(session, REPO, 10)] == [8]
        decided(session, 7, [0, 1, 1], "c")  # the issue was edited and voted on again
    with sessions() as session:
        assert [r.number for r, _ in split_votes(session, REPO, 10)] == [7, 8]
