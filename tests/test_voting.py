"""k votes over real HTTP to the scripted model server: RUBRICS.md §5 and the issue 2 cases."""

from __future__ import annotations

from typing import Any

import pytest

from spice_engine.errors import NoValidVotesError
from spice_engine.issue_clarity import IssueOptions, assess_issue
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.models import Agreement, Issue
from tests.clarity_script import clarity, is_format_retry
from tests.fakes.openai_server import FakeOpenAI, Reply

ISSUE = Issue(title="parse_config crashes on empty input", body="`parse_config('')` raises.")


def chat(server: FakeOpenAI, **overrides: Any) -> LiteLLMChat:
    config = {
        "model": "openai/fake",
        "api_base": server.api_base,
        "api_key": "anything",
        "output_mode": "json_object",
        "backoff_s": 0.0,
        **overrides,
    }
    return LiteLLMChat(ModelConfig(**config))


def batch(*texts: str) -> Any:
    return lambda request: Reply(texts=list(texts)[: int(request.get("n") or 1)])


def test_majority_of_three_in_one_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = batch(clarity(2), clarity(2), clarity(1))
    result = assess_issue(ISSUE, chat(fake_openai))
    assert result.clarity.score == 2
    assert [v.score for v in result.clarity.votes] == [2, 2, 1]
    assert result.clarity.agreement is Agreement.MAJORITY
    assert result.clarity.controversial  # 1 is "well-specified", 2 is not
    assert result.clarity.max_score == 2
    assert len(fake_openai.requests) == 1
    assert fake_openai.requests[0]["n"] == 3


def test_three_different_votes_take_the_median(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = batch(clarity(0), clarity(1), clarity(3))
    result = assess_issue(ISSUE, chat(fake_openai))
    assert result.clarity.score == 1
    assert result.clarity.agreement is Agreement.SPLIT
    assert result.clarity.controversial


def test_invalid_vote_is_retried_once_with_the_error_fed_back(fake_openai: FakeOpenAI) -> None:
    def responder(request: dict[str, Any]) -> Reply:
        if is_format_retry(request):
            return Reply(texts=[clarity(1)])
        return Reply(texts=[clarity(1), '{"score": 7, "rationale": "x"}', clarity(1)])

    fake_openai.responder = responder
    result = assess_issue(ISSUE, chat(fake_openai))
    assert result.clarity.score == 1
    assert result.clarity.valid_votes == 3
    assert len(fake_openai.requests) == 2
    feedback = fake_openai.requests[1]["messages"][-1]["content"]
    assert "score" in feedback and "could not be used" in feedback
    assert fake_openai.requests[1]["messages"][-2]["role"] == "assistant"


def test_timed_out_vote_is_dropped_and_reported(fake_openai: FakeOpenAI) -> None:
    def responder(request: dict[str, Any]) -> Reply:
        if request["seed"] == 0:
            return Reply(texts=[clarity(0)], delay_s=2.0)
        return Reply(texts=[clarity(2)])

    fake_openai.responder = responder
    model = chat(fake_openai, use_n="never", timeout_s=0.5, max_attempts=2)
    result = assess_issue(ISSUE, model)
    assert result.clarity.score == 2
    assert result.clarity.valid_votes == 2
    assert result.clarity.requested_votes == 3
    assert any("no answer within" in e for e in result.clarity.errors)
    assert sum(r["seed"] == 0 for r in fake_openai.requests) == 2  # retried once, then dropped


def test_an_answer_cut_off_at_the_token_limit_is_reported_as_such(
    fake_openai: FakeOpenAI,
) -> None:
    # Small local models can ramble until max_tokens: "no JSON object" would hide why.
    def responder(request: dict[str, Any]) -> Reply:
        if request["seed"] == 0:
            return Reply(texts=['{"rationale": "it goes on and on and'], finish_reason="length")
        return Reply(texts=[clarity(1)])

    fake_openai.responder = responder
    result = assess_issue(ISSUE, chat(fake_openai, use_n="never"))
    assert result.clarity.score == 1
    assert result.clarity.valid_votes == 2
    [error] = result.clarity.errors
    assert "vote (seed 0)" in error and "output-token limit" in error
    [retry] = [r for r in fake_openai.requests if is_format_retry(r)]
    assert "output-token limit" in retry["messages"][-1]["content"]


def test_a_complete_answer_at_the_token_limit_still_counts(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda request: Reply(texts=[clarity(2)], finish_reason="length")
    result = assess_issue(ISSUE, chat(fake_openai, use_n="never"))
    assert result.clarity.score == 2 and result.clarity.valid_votes == 3


def test_all_votes_invalid_twice_gives_no_label(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda request: Reply(texts=["not json"] * int(request.get("n") or 1))
    with pytest.raises(NoValidVotesError) as info:
        assess_issue(ISSUE, chat(fake_openai))
    assert "no JSON object" in str(info.value) and not info.value.capped
    assert len(fake_openai.requests) == 1 + 3


def test_without_n_support_votes_are_separate_requests_with_distinct_seeds(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.responder = batch(clarity(1))
    single = assess_issue(ISSUE, chat(fake_openai, use_n="never"))
    seeds = sorted(r["seed"] for r in fake_openai.requests)
    assert seeds == [0, 1, 2]
    assert all("n" not in r for r in fake_openai.requests)
    assert all(r["temperature"] > 0 for r in fake_openai.requests)

    fake_openai.requests.clear()
    fake_openai.responder = batch(clarity(1), clarity(1), clarity(1))
    batched = assess_issue(ISSUE, chat(fake_openai))
    assert len(fake_openai.requests) == 1
    # Input is billed once for n=3 and three times for three requests.
    assert single.usage.input == 3 * batched.usage.input
    assert single.usage.requests == 3 and batched.usage.requests == 1


def test_server_ignoring_n_gets_the_missing_votes_singly(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda request: Reply(texts=[clarity(3)])
    result = assess_issue(ISSUE, chat(fake_openai))
    assert result.clarity.valid_votes == 3
    assert len(fake_openai.requests) == 3  # one batch answered once, two singles


def test_transient_errors_are_retried_permanent_ones_are_not(fake_openai: FakeOpenAI) -> None:
    calls = {"n": 0}

    def flaky(request: dict[str, Any]) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(status=503, error="overloaded")
        return Reply(texts=[clarity(0)] * int(request.get("n") or 1))

    fake_openai.responder = flaky
    assert assess_issue(ISSUE, chat(fake_openai)).clarity.score == 0
    assert calls["n"] == 2

    fake_openai.requests.clear()
    fake_openai.responder = lambda request: Reply(status=401, error="bad key")
    with pytest.raises(NoValidVotesError, match="AuthenticationError"):
        assess_issue(ISSUE, chat(fake_openai))
    assert len(fake_openai.requests) == 1


def test_cost_is_priced_from_the_local_table_and_capped(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = batch(clarity(1), clarity(1), clarity(1))
    priced = chat(fake_openai, model="gpt-4o-mini")
    result = assess_issue(ISSUE, priced)
    assert result.usage.cost_known and result.usage.cost_usd > 0
    expected = result.usage.input * 0.15e-6 + result.usage.output * 0.6e-6
    assert result.usage.cost_usd == pytest.approx(expected, rel=1e-6)

    fake_openai.requests.clear()
    with pytest.raises(NoValidVotesError, match="cost cap") as capped:
        assess_issue(ISSUE, priced, IssueOptions(cost_cap_usd=1e-7))
    assert fake_openai.requests == []
    assert capped.value.capped  # a type-level fact the worker reads: not worth a retry


def test_unknown_price_is_reported_not_invented(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = batch(clarity(1), clarity(1), clarity(1))
    result = assess_issue(ISSUE, chat(fake_openai))
    assert not result.usage.cost_known
    assert result.usage.cost_usd == 0.0


def test_a_cap_stops_a_model_of_unknown_price_after_its_first_request(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.responder = batch(clarity(1))
    unpriced = chat(fake_openai, use_n="never")  # openai/fake: litellm knows no price
    capped = assess_issue(ISSUE, unpriced, IssueOptions(cost_cap_usd=0.01))
    assert len(fake_openai.requests) == 1 and capped.clarity.valid_votes == 1
    assert any("price of openai/fake is unknown" in e for e in capped.clarity.errors)

    fake_openai.requests.clear()
    allowed = IssueOptions(cost_cap_usd=0.01, allow_unpriced=True)
    assert assess_issue(ISSUE, unpriced, allowed).clarity.valid_votes == 3
    assert len(fake_openai.requests) == 3


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "text"])
def test_output_modes(fake_openai: FakeOpenAI, mode: str) -> None:
    answer = clarity(2, questions=["Which version?"])
    text = f"Here is my answer:\n```json\n{answer}\n```" if mode == "text" else answer
    fake_openai.responder = batch(text, text, text)
    result = assess_issue(ISSUE, chat(fake_openai, output_mode=mode))
    assert result.clarity.score == 2
    assert result.questions == ["Which version?"]
    fmt = fake_openai.requests[0].get("response_format")
    if mode == "json_schema":
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    elif mode == "json_object":
        assert fmt["type"] == "json_object" and "score" in fmt["schema"]["properties"]
    else:
        assert fmt is None
