"""Check GraphQL query texts, variables and the fake's answers against GitHub's schema."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from graphql import GraphQLSchema, build_schema, execute, parse, validate
from graphql.error import GraphQLError

EXCERPT = Path(__file__).resolve().parents[1] / "data" / "github" / "graphql-schema.graphql"


@cache
def graphql_schema() -> GraphQLSchema:
    return build_schema(EXCERPT.read_text())


def graphql_problems(query: str, variables: dict[str, Any], answer: Any) -> list[str]:
    """The query against the schema, then the answer's `data` as the schema would shape it."""
    schema = graphql_schema()
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [f"graphql query: {exc.message}"]
    errors = validate(schema, document)
    if errors:
        return [f"graphql query: {e.message}" for e in errors]
    data = answer.get("data") if isinstance(answer, dict) else None
    if data is None:
        return []  # errors only (rate limit, NOT_FOUND): nothing to shape
    # Executing over the answer (dict keys as resolvers) coerces the variables and flags a
    # null where the schema says non-null, or a wrong leaf type.
    result = execute(schema, document, root_value=data, variable_values=variables)
    assert not hasattr(result, "__await__")
    return [f"graphql answer: {e.message} at {e.path}" for e in result.errors or []]  # type: ignore[union-attr]
