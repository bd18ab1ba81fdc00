"""One delivery's working set (session, repository, config) and the write step every pipeline shares."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from app.github.client import CommentData, GitHubRepo
from app.github.comment_render import (
    assessment_view,
    render_config_error,
    render_no_changes,
    render_view,
)
from app.github.labels import LabelPlan, apply_labels, plan_for_item, plan_labels
from app.github.repo_config import ConfigResult, RepoConfig
from app.github.seams import GitHubSession
from app.github.sticky_comment import StickyState, find_sticky, read_state, upsert_sticky
from app.github.untrusted_text import neutralise
from app.handlers.deps import HandlerDeps, HandlerOutcome
from spice_engine.dimensions import dimension
from spice_engine.results import AnyAssessment

log = logging.getLogger(__name__)
ASSESSMENT = "assessment"


@dataclass
class RunContext:
    deps: HandlerDeps
    session: GitHubSession
    repo: GitHubRepo
    config: RepoConfig
    outcome: HandlerOutcome
    listed: dict[int, list[CommentData]] = field(default_factory=dict)
    """Comments per item, listed once per run (our edit copes with one deleted meanwhile)."""

    def comments(self, number: int) -> list[CommentData]:
        if number not in self.listed:
            self.listed[number] = self.repo.list_comments(number)
        return self.listed[number]

    def moved_to(self, repo_name: str, number: int) -> RunContext | None:
        """This run carried on where an item was transferred, under that repository's own
        `.github/spice.yml` (its dry-run, pipelines and labels), never this one's; None (and
        the outcome says why) when that config is invalid."""
        repo = self.session.repo(repo_name)
        loaded = self.deps.config_cache.load(repo)
        self.outcome.repo, self.outcome.number = repo_name, number
        if loaded.config is None:
            self.outcome.skipped = f"moved to {repo_name}#{number}, whose config is invalid"
            return None
        there = RunContext(self.deps, self.session, repo, loaded.config, self.outcome)
        self.outcome.dry_run = there.dry_run
        return there

    @property
    def number(self) -> int:
        """The issue or PR of this run (every repository route has one)."""
        assert self.outcome.number is not None
        return self.outcome.number

    @property
    def dry_run(self) -> bool:
        return self.deps.dry_run or self.config.dry_run

    @property
    def bot(self) -> str:
        return self.session.bot_login

    def previous_state(self, number: int) -> StickyState | None:
        """The state block of OUR sticky comment; text anyone else wrote is never read."""
        return read_state(find_sticky(self.comments(number), self.bot, ASSESSMENT))

    def unchanged(self, kind: str, number: int, key: str, force: bool) -> bool:
        """True (and the outcome says so) when this input was assessed before: our comment's
        state, or the App's store when no comment holds it."""
        if force:
            return False
        previous = self.previous_state(number)
        seen = previous is not None and previous.input_hash == key
        lookup = self.deps.assessed_before
        if not seen and lookup is not None:
            seen = lookup(kind, self.repo.full_name, number, key)
        if seen:
            self.outcome.skipped = "unchanged input: not re-voted"
        return seen

    def post_sticky(self, number: int, body: str) -> None:
        """Our one comment on the item, from the comments listed once this run."""
        done = upsert_sticky(
            self.repo, number, self.bot, ASSESSMENT, body, self.deps.retry_policy,
            self.comments(number),
        )  # fmt: skip
        self.outcome.comment_id, self.outcome.comment_action = done.comment_id, done.action

    def publish(
        self,
        number: int,
        current_labels: list[str],
        plan: LabelPlan,
        body: str,
        actionable: bool,
        force_comment: bool = False,
    ) -> None:
        """Labels first (idempotent), then the sticky comment per the comment mode."""
        prefix, out = self.config.label_prefix, self.outcome
        out.labels_wanted = [name for name in plan.desired.values() if name]
        mode = "always" if force_comment else self.config.comment_mode
        if self.dry_run:
            change = plan_for_item(self.repo, number, current_labels, plan, prefix, self.bot)
            out.labels_added, out.labels_removed = change.added, change.removed
            out.labels_left = change.left
            if mode == "always" or (mode == "when-actionable" and actionable):
                out.comment_action, out.comment_body = "planned", body
            return
        change = apply_labels(self.repo, number, current_labels, plan, prefix, self.bot)
        out.labels_added, out.labels_removed = change.added, change.removed
        out.labels_left = change.left
        out.labels_created = change.created
        if mode == "never":
            return
        # when-actionable still keeps an existing comment current: no stale verdict stays up.
        if (
            mode == "when-actionable"
            and not actionable
            and find_sticky(self.comments(number), self.bot, ASSESSMENT) is None
        ):
            return
        self.post_sticky(number, body)

    def publish_assessment(
        self,
        number: int,
        current_labels: list[str],
        result: AnyAssessment,
        actionable: bool,
        explain: bool,
    ) -> StickyState:
        """Record the result, then its labels and its comment (state keyed on its input hash)."""
        prefix, out = self.config.label_prefix, self.outcome
        out.assessments.append(result)
        plan = plan_labels(result, prefix)
        shown = {k: r for k, r in result.results().items() if dimension(k).in_comment}
        state = StickyState(
            input_hash=result.input_hash,
            pipeline=out.pipeline or "",
            model=result.model,
            prompt_version=",".join(f"{p.id}/v{p.version}" for p in result.prompt_refs()),
            votes={k: [v.score for v in r.votes] for k, r in shown.items()},
            labels=[name for name in plan.desired.values() if name],
        )
        view = assessment_view(result, prefix, self.deps.secrets(), expanded=explain)
        view.summary += [neutralise(w, 200) for w in out.warnings]
        body = render_view(view, state, ASSESSMENT)
        self.publish(number, current_labels, plan, body, actionable, force_comment=explain)
        return state

    def report_config_error(self, number: int | None, loaded: ConfigResult) -> None:
        """One clear comment on the item that triggered us (edited in place, never repeated)."""
        error = loaded.error or "invalid"
        self.outcome.config_error = error
        log.warning("invalid .github/spice.yml in %s: %s", self.repo.full_name, error)
        if number is None or self.deps.dry_run:
            return
        state = StickyState(input_hash=f"config:{loaded.source_hash}", pipeline="config")
        body = render_config_error(error, loaded.problems, state, ASSESSMENT)
        self.post_sticky(number, body)

    def report_no_changes(self, number: int) -> None:
        """A pull request that changes no file: said once in the sticky comment, no votes."""
        self.outcome.skipped = "the pull request has no changed file: nothing to assess yet"
        log.info("pull request %s#%d changes no file: not assessed", self.repo.full_name, number)
        if self.dry_run or self.config.comment_mode == "never":
            return
        state = StickyState(input_hash="no-changes", pipeline="pull_requests")
        self.post_sticky(number, render_no_changes(state, ASSESSMENT))
