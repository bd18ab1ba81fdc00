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
from app.handlers.deps import HandlerDeps
from app.handlers.outcome import CommentChange, Done, Failed, LabelChange, Skipped
from app.shown_survivors import SurvivorKey
from spice_engine.dimensions import dimension
from spice_engine.results import AnyAssessment

log = logging.getLogger(__name__)
ASSESSMENT = "assessment"


@dataclass
class RunContext:
    """What a handler works with; it reports through what it returns (`Done`) or raises."""

    deps: HandlerDeps
    session: GitHubSession
    repo: GitHubRepo
    config: RepoConfig
    number: int
    """The issue or PR of this run (every repository route has one)."""
    listed: dict[int, list[CommentData]] = field(default_factory=dict)
    """Comments per item, listed once per run (our edit copes with one deleted meanwhile)."""

    def comments(self, number: int) -> list[CommentData]:
        if number not in self.listed:
            self.listed[number] = self.repo.list_comments(number)
        return self.listed[number]

    def moved_to(self, repo_name: str, number: int) -> RunContext:
        """This run carried on where an item was transferred, under that repository's own
        `.github/spice.yml` (its dry-run, pipelines and labels), never this one's."""
        repo = self.session.repo(repo_name)
        loaded = self.deps.config_cache.load(repo)
        if loaded.config is None:
            raise Skipped(f"moved to {repo_name}#{number}, whose .github/spice.yml is invalid")
        return RunContext(self.deps, self.session, repo, loaded.config, number)

    @property
    def dry_run(self) -> bool:
        return self.deps.dry_run or self.config.dry_run

    @property
    def bot(self) -> str:
        return self.session.bot_login

    def done(
        self,
        pipeline: str,
        number: int | None = None,
        labels: LabelChange | None = None,
        comment: CommentChange | None = None,
        reaction: str | None = None,
        assessments: list[AnyAssessment] | None = None,
        warnings: list[str] | None = None,
    ) -> Done:
        """The typed result of a handler that worked here (on `number`, else the run's)."""
        return Done(
            pipeline=pipeline,
            repo=self.repo.full_name,
            number=self.number if number is None else number,
            dry_run=self.dry_run,
            labels=labels,
            comment=comment,
            reaction=reaction,
            assessments=assessments or [],
            warnings=warnings or [],
        )

    def previous_state(self, number: int) -> StickyState | None:
        """The state block of OUR sticky comment; text anyone else wrote is never read."""
        return read_state(find_sticky(self.comments(number), self.bot, ASSESSMENT))

    def skip_if_unchanged(self, kind: str, number: int, key: str, force: bool) -> None:
        """Raises `Skipped` when this input was assessed before: our comment's state, or the
        App's store when no comment holds it."""
        if force:
            return
        previous = self.previous_state(number)
        seen = previous is not None and previous.input_hash == key
        lookup = self.deps.assessed_before
        if not seen and lookup is not None:
            seen = lookup(kind, self.repo.full_name, number, key)
        if seen:
            raise Skipped("unchanged input: not re-voted")

    def post_sticky(self, number: int, body: str) -> CommentChange:
        """Our one comment on the item, from the comments listed once this run."""
        done = upsert_sticky(
            self.repo,
            number,
            self.bot,
            ASSESSMENT,
            body,
            self.deps.retry_policy,
            self.comments(number),
        )
        return CommentChange(action=done.action, id=done.comment_id)

    def publish(
        self,
        number: int,
        current_labels: list[str],
        plan: LabelPlan,
        body: str,
        actionable: bool,
        force_comment: bool = False,
    ) -> tuple[LabelChange, CommentChange | None]:
        """Labels first (idempotent), then the sticky comment per the comment mode."""
        prefix = self.config.label_prefix
        wanted = [name for name in plan.desired.values() if name]
        mode = "always" if force_comment else self.config.comment_mode
        if self.dry_run:
            change = plan_for_item(self.repo, number, current_labels, plan, prefix, self.bot)
            labels = LabelChange(
                added=change.added, removed=change.removed, left=change.left, wanted=wanted
            )
            if mode == "always" or (mode == "when-actionable" and actionable):
                return labels, CommentChange(action="planned", body=body)
            return labels, None
        change = apply_labels(self.repo, number, current_labels, plan, prefix, self.bot)
        labels = LabelChange(
            added=change.added,
            removed=change.removed,
            left=change.left,
            created=change.created,
            wanted=wanted,
        )
        if mode == "never":
            return labels, None
        # when-actionable still keeps an existing comment current: no stale verdict stays up.
        if (
            mode == "when-actionable"
            and not actionable
            and find_sticky(self.comments(number), self.bot, ASSESSMENT) is None
        ):
            return labels, None
        return labels, self.post_sticky(number, body)

    def publish_assessment(
        self,
        pipeline: str,
        number: int,
        current_labels: list[str],
        result: AnyAssessment,
        actionable: bool,
        explain: bool,
        warnings: list[str],
        suppressed: frozenset[SurvivorKey] = frozenset(),
    ) -> Done:
        """Record the result, then its labels and its comment (state keyed on its input hash);
        survivors of the `suppressed` kinds are not shown."""
        prefix = self.config.label_prefix
        plan = plan_labels(result, prefix)
        shown = {k: r for k, r in result.results().items() if dimension(k).in_comment}
        state = StickyState(
            input_hash=result.input_hash,
            pipeline=pipeline,
            model=result.model,
            prompt_version=",".join(f"{p.id}/v{p.version}" for p in result.prompt_refs()),
            votes={k: [v.score for v in r.votes] for k, r in shown.items()},
            labels=[name for name in plan.desired.values() if name],
        )
        view = assessment_view(result, prefix, self.deps.secrets(), explain, suppressed)
        view.summary += [neutralise(w, 200) for w in warnings]
        body = render_view(view, state, ASSESSMENT)
        labels, comment = self.publish(
            number, current_labels, plan, body, actionable, force_comment=explain
        )
        log.info(
            "%s %s#%d votes=%s labels+%s -%s comment=%s",
            pipeline,
            self.repo.full_name,
            number,
            state.votes,
            labels.added,
            labels.removed,
            comment.action if comment else None,
        )
        return self.done(
            pipeline,
            number,
            labels=labels,
            comment=comment,
            assessments=[result],
            warnings=warnings,
        )

    def report_config_error(self, number: int | None, loaded: ConfigResult) -> Failed:
        """One clear comment on the item that triggered us (edited in place, never repeated);
        the failure to raise."""
        error = loaded.error or "invalid"
        log.warning("invalid .github/spice.yml in %s: %s", self.repo.full_name, error)
        if number is not None and not self.deps.dry_run:
            state = StickyState(input_hash=f"config:{loaded.source_hash}", pipeline="config")
            body = render_config_error(error, loaded.problems, state, ASSESSMENT)
            self.post_sticky(number, body)
        return Failed(f"invalid .github/spice.yml: {error}")

    def report_no_changes(self, number: int) -> Skipped:
        """A pull request that changes no file: said once in the sticky comment, no votes;
        the skip to raise."""
        log.info("pull request %s#%d changes no file: not assessed", self.repo.full_name, number)
        if not self.dry_run and self.config.comment_mode != "never":
            state = StickyState(input_hash="no-changes", pipeline="pull_requests")
            self.post_sticky(number, render_no_changes(state, ASSESSMENT))
        return Skipped("the pull request has no changed file: nothing to assess yet")
