"""PR pipeline end to end against the fake model server, with and without a checkout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spice_engine.errors import InputError, NoValidVotesError
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
from spice_engine.pr.diff_split import SplitRules
from spice_engine.pr.models import PROptions, PullRequest
from spice_engine.pr.pipeline import assess_instance, assess_pr, pr_from_instance, prepare_pr
from spice_engine.pr.repo_context import ContextOptions
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.test_pr_context import make_repo


def chat(fake: FakeOpenAI) -> LiteLLMChat:
    return LiteLLMChat(
        ModelConfig(
            model="openai/fake", api_base=fake.api_base, api_key="x", output_mode="json_object"
        )
    )


def question(request: dict[str, Any]) -> str:
    return "tests" if "test adequacy" in request["messages"][2]["content"] else "difficulty"


def scripted(request: dict[str, Any]) -> Reply:
    n = int(request.get("n") or 1)
    if question(request) == "difficulty":
        return Reply(texts=[json.dumps({"rationale": "small", "score": 1})] * n)
    answers = [
        {"rationale": "names from the gold patch", "score": 2, "counter_example": "rename x"},
        {"rationale": "fine", "score": 0, "counter_example": None},
        {"rationale": "narrow", "score": 2, "counter_example": "a patch raising TypeError"},
    ]
    return Reply(texts=[json.dumps(a) for a in answers[:n]])


def test_real_instance_without_checkout(
    fake_openai: FakeOpenAI, swebench_instances: list[dict[str, Any]]
) -> None:
    fake_openai.responder = scripted
    instance = next(r for r in swebench_instances if r.get("test_patch"))
    result = assess_instance(instance, chat(fake_openai), evidence={"tests_touch": ["x"]})
    assert result.context.mode == "patches_only"
    assert any("no checkout" in n for n in result.notes)
    assert result.tests is not None and result.tests.score == 2
    assert [v.score for v in result.tests.votes] == [2, 0, 2]
    assert result.counter_examples == ["rename x", "a patch raising TypeError"]
    assert result.difficulty.score == 1
    assert result.judged_against == "linked_issues"
    assert {p.id for p in result.prompts} == {"test_adequacy", "difficulty"}
    # One n=3 request per dimension: input billed once, and both share the context prefix.
    assert len(fake_openai.requests) == 2
    assert all(r["n"] == 3 for r in fake_openai.requests)
    first, second = (r["messages"] for r in fake_openai.requests)
    assert first[:2] == second[:2] and first[2] != second[2]
    assert '"tests_touch"' in first[1]["content"]
    assert result.usage.input == sum(u.input for u in result.usage_by_dimension.values())
    assert max(result.context.prompt_tokens.values()) <= 24_000


def test_the_cost_cap_holds_for_the_whole_pr_not_each_dimension(
    fake_openai: FakeOpenAI, swebench_instances: list[dict[str, Any]]
) -> None:
    fake_openai.responder = scripted
    instance = next(r for r in swebench_instances if r.get("test_patch"))
    priced = LiteLLMChat(
        ModelConfig(
            model="gpt-4o-mini",
            api_base=fake_openai.api_base,
            api_key="x",
            output_mode="json_object",
        )
    )
    # The cap is checked against each request's estimate (k answers at the output limit):
    # set it so either dimension fits alone, but not the second after the first's spend.
    messages = prepare_pr(pr_from_instance(instance)).prompts.messages
    estimates = {
        dim: priced.estimate_cost(m, 3, batched=True) or 0.0 for dim, m in messages.items()
    }
    cap = max(estimates.values()) * 1.1
    spent_first = assess_instance(instance, priced).usage_by_dimension["tests"].cost_usd
    assert spent_first > 0 and spent_first + estimates["difficulty"] > cap
    fake_openai.requests.clear()
    with pytest.raises(NoValidVotesError, match="cost cap"):
        assess_instance(instance, priced, PROptions(cost_cap_usd=cap))
    assert len(fake_openai.requests) == 1


def test_missing_counter_example_is_fed_back_as_a_format_error(
    fake_openai: FakeOpenAI, swebench_instances: list[dict[str, Any]]
) -> None:
    def responder(request: dict[str, Any]) -> Reply:
        n = int(request.get("n") or 1)
        if question(request) == "difficulty":
            return Reply(texts=[json.dumps({"rationale": "r", "score": 0})] * n)
        if "could not be used" in request["messages"][-1]["content"]:
            fixed = {"rationale": "r", "score": 1, "counter_example": "a valid alternative"}
            return Reply(texts=[json.dumps(fixed)])
        bad = {"rationale": "r", "score": 1, "counter_example": None}
        return Reply(texts=[json.dumps(bad)] * n)

    fake_openai.responder = responder
    instance = next(r for r in swebench_instances if r.get("test_patch"))
    result = assess_instance(instance, chat(fake_openai))
    assert result.tests is not None and result.tests.valid_votes == 3
    retries = [
        r for r in fake_openai.requests if "could not be used" in r["messages"][-1]["content"]
    ]
    assert len(retries) == 3
    assert "counter_example is required" in retries[0]["messages"][-1]["content"]


def test_pr_with_checkout_and_linked_issue(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = scripted
    repo, base, diff = make_repo(tmp_path)
    pr = PullRequest(
        repo="acme/shop",
        number=7,
        title="Tax rate per call",
        body="Fixes #3",
        diff=diff,
        base_sha=base,
    )
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    with manager.checkout("acme/shop", str(repo), base) as path:
        result = assess_pr(pr, chat(fake_openai), repo_path=path)
    assert result.context.mode == "repository"
    assert result.linked_issues.numbers == [3]
    assert result.judged_against == "pr_description"  # the issue text was not supplied
    assert [f.kind for f in result.files] == ["source", "source", "test"]
    assert result.context.files_full == ["shop/pricing.py", "shop/tax.py", "tests/test_pricing.py"]
    context = fake_openai.requests[0]["messages"][1]["content"]
    assert '<file path="shop/tax.py" role="source">' in context
    assert "No issue is linked" in context


def test_cap_trims_by_priority_and_records_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    repo, base, diff = make_repo(tmp_path)
    pr = PullRequest(title="t", body="x " * 6000, diff=diff, base_sha=base)
    options = PROptions(votes=1, context=ContextOptions(max_prompt_tokens=2_000))
    result = assess_pr(pr, chat(fake_openai), options, repo_path=repo)
    ctx = result.context
    assert max(ctx.prompt_tokens.values()) <= 2_000
    assert ctx.trimmed and any("task cut" in t for t in ctx.trimmed)
    assert "shortened" in fake_openai.requests[0]["messages"][1]["content"]


def test_pr_without_tests_votes_difficulty_only(fake_openai: FakeOpenAI) -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    result = assess_pr(PullRequest(title="bump", diff=diff), chat(fake_openai))
    assert result.tests is None and result.difficulty.score is not None
    assert len(fake_openai.requests) == 1


def test_malformed_diff_is_a_clear_error(fake_openai: FakeOpenAI) -> None:
    with pytest.raises(InputError, match="malformed diff"):
        assess_pr(PullRequest(title="x", diff="not a diff at all"), chat(fake_openai))
    assert fake_openai.requests == []


def test_per_repository_split_overrides_apply(fake_openai: FakeOpenAI) -> None:
    diff = (
        "--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
        "--- a/checks/core_check.py\n+++ b/checks/core_check.py\n@@ -1 +1 @@\n-b = 1\n+b = 2\n"
    )
    options = PROptions(votes=1, split_overrides={"acme/lib": SplitRules(test_globs=["checks/*"])})
    result = assess_pr(PullRequest(repo="acme/lib", diff=diff), chat(fake_openai), options)
    assert [f.kind for f in result.files] == ["source", "test"]
    assert result.tests is not None
    other = assess_pr(PullRequest(repo="acme/other", diff=diff), chat(fake_openai), options)
    assert other.tests is None


def base_files_from_patch(diff: str) -> dict[str, str]:
    """Each touched file's base lines that the hunks show, at their own line numbers."""
    from unidiff import PatchSet

    files: dict[str, str] = {}
    for parsed in PatchSet(diff):
        if parsed.is_added_file or parsed.is_binary_file:
            continue
        lines: dict[int, str] = {}
        for hunk in parsed:
            for line in hunk:
                if line.source_line_no is not None:
                    lines[line.source_line_no] = line.value.rstrip("\n")
        top = max(lines, default=0)
        files[parsed.source_file[2:]] = "\n".join(lines.get(n, "") for n in range(1, top + 1))
    return files


@pytest.mark.parametrize("repo", ["django/django", "sympy/sympy", "pytest-dev/pytest"])
def test_real_instance_with_a_checkout(
    repo: str, fake_openai: FakeOpenAI, swebench_instances: list[dict[str, Any]], tmp_path: Path
) -> None:
    # The real repositories are not reachable here: the checkout holds what the patches show of
    # each touched file at its base line numbers, committed into a git repository.
    from tests.test_pr_context import git

    fake_openai.responder = scripted
    instance = next(r for r in swebench_instances if r["repo"] == repo and r.get("test_patch"))
    root = tmp_path / "checkout"
    for rel, text in base_files_from_patch(instance["patch"] + instance["test_patch"]).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    result = assess_instance(instance, chat(fake_openai), repo_path=root)
    assert result.context.mode == "repository"
    assert result.context.files_full or result.context.files_excerpted
    assert result.tests is not None and result.tests.score == 2
    assert max(result.context.prompt_tokens.values()) <= 24_000
    assert fake_openai.requests[0]["messages"][:2] == fake_openai.requests[1]["messages"][:2]
