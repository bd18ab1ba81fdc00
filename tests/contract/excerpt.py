"""Cut the operations and schemas the code uses out of GitHub's full descriptions.

The full descriptions (../shared/data/github/, MIT, from octokit) are several MB; the default
suite must run from a plain clone, so it reads the excerpt in tests/data/github/ instead, and
`test_contract_excerpt.py` checks that the excerpt still equals a fresh cut when ../shared is
there. Regenerate with `python -m tests.contract.excerpt`.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from graphql import (
    FieldNode,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    build_schema,
    get_named_type,
    parse,
    visit,
)

from tests.contract.operations import REST_OPERATIONS, WEBHOOK_EVENTS

ROOT = Path(__file__).resolve().parents[2]
FULL = ROOT.parent / "shared" / "data" / "github"
EXCERPT = ROOT / "tests" / "data" / "github"
DROPPED = {"description", "summary", "examples", "example", "externalDocs", "tags", "title"}
"""Prose and examples: not part of the contract, and most of the size."""


def _prose_extension(key: str) -> bool:
    return key.startswith("x-") and key != "x-multi-segment"  # `{path}` may hold slashes


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        kept = {k: v for k, v in node.items() if k not in DROPPED and not _prose_extension(k)}
        if "properties" in node:  # property names are data here, never prose
            kept["properties"] = {k: _strip(v) for k, v in node["properties"].items()}
        return {k: (v if k == "properties" else _strip(v)) for k, v in kept.items()}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _with_components(full: dict[str, Any], roots: dict[str, Any]) -> dict[str, Any]:
    """`roots` plus every component they reach through `$ref`, all stripped of prose."""
    components: dict[str, dict[str, Any]] = {}
    todo = _refs(roots)
    while todo:
        ref = todo.pop()
        _, _, kind, name = ref.split("/", 3)
        if name in components.get(kind, {}):
            continue
        node = _strip(full["components"][kind][name])
        components.setdefault(kind, {})[name] = node
        todo += _refs(node)
    return {k: dict(sorted(v.items())) for k, v in sorted(components.items())}


def rest_excerpt(full: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for method, template in REST_OPERATIONS:
        item = full["paths"][template]
        paths.setdefault(template, {})[method] = _strip(item[method])
    return {
        "openapi": full["openapi"],
        "info": {"title": "excerpt of GitHub v3 REST API", "version": full["info"]["version"]},
        "servers": full["servers"],
        "paths": paths,
        "components": _with_components(full, paths),
    }


def webhooks_excerpt(full: dict[str, Any]) -> dict[str, Any]:
    hooks = {key: _strip(full["webhooks"][key]) for key in WEBHOOK_EVENTS}
    return {
        "openapi": full["openapi"],
        "info": {"title": "excerpt of GitHub webhooks", "version": full["info"]["version"]},
        "webhooks": hooks,
        "components": _with_components(full, hooks),
    }


def _type_ref(kind: Any) -> str:
    if isinstance(kind, GraphQLNonNull):
        return f"{_type_ref(kind.of_type)}!"
    if isinstance(kind, GraphQLList):
        return f"[{_type_ref(kind.of_type)}]"
    return str(kind.name)


def graphql_excerpt(schema: GraphQLSchema, queries: list[str]) -> str:
    """SDL of only the types, fields and arguments the queries select."""
    used: dict[str, set[str]] = {}
    used_args: dict[tuple[str, str], set[str]] = {}
    scalars: set[str] = set()
    info = TypeInfo(schema)

    class Collect(Visitor):
        def enter_field(self, node: FieldNode, *_: Any) -> None:
            parent, field = info.get_parent_type(), info.get_field_def()
            if parent is None or field is None:
                return
            used.setdefault(parent.name, set()).add(node.name.value)
            named: GraphQLNamedType = get_named_type(field.type)
            if not isinstance(named, GraphQLObjectType):
                scalars.add(named.name)
            given = {arg.name.value for arg in node.arguments or ()}
            args = used_args.setdefault((parent.name, node.name.value), set())
            for name, arg in field.args.items():
                if name in given or isinstance(arg.type, GraphQLNonNull):
                    args.add(name)
                    scalars.add(get_named_type(arg.type).name)

    for query in queries:
        visit(parse(query), TypeInfoVisitor(info, Collect()))
    lines = []
    for scalar in sorted(scalars - {"String", "Int", "Boolean", "ID", "Float"}):
        lines.append(f"scalar {scalar}\n")
    for name in sorted(used):
        kind = schema.type_map[name]
        assert isinstance(kind, GraphQLObjectType)
        lines.append(f"type {name} {{")
        for field_name in sorted(used[name]):
            field = kind.fields[field_name]
            wanted = used_args.get((name, field_name), set())
            args = ", ".join(
                f"{a}: {_type_ref(v.type)}" for a, v in field.args.items() if a in wanted
            )
            lines.append(f"  {field_name}{f'({args})' if args else ''}: {_type_ref(field.type)}")
        lines.append("}\n")
    return "\n".join(lines)


def graphql_queries() -> list[str]:
    from app.github.graphql import CLOSING_QUERY

    return [CLOSING_QUERY]


def load_full() -> tuple[dict[str, Any], dict[str, Any], GraphQLSchema]:
    rest = json.loads(gzip.decompress((FULL / "rest-openapi.json.gz").read_bytes()))
    hooks = json.loads(gzip.decompress((FULL / "webhooks-openapi.json.gz").read_bytes()))
    sdl = gzip.decompress((FULL / "graphql-schema.graphql.gz").read_bytes()).decode()
    return rest, hooks, build_schema(sdl, assume_valid=True)


def cut() -> dict[str, str]:
    """File name -> text of every excerpt file."""
    rest, hooks, schema = load_full()
    dump = {"indent": 0, "sort_keys": True, "separators": (",", ":")}
    return {
        "rest-openapi.json": json.dumps(rest_excerpt(rest), **dump) + "\n",  # type: ignore[arg-type]
        "webhooks-openapi.json": json.dumps(webhooks_excerpt(hooks), **dump) + "\n",  # type: ignore[arg-type]
        "graphql-schema.graphql": graphql_excerpt(schema, graphql_queries()),
    }


if __name__ == "__main__":
    EXCERPT.mkdir(parents=True, exist_ok=True)
    for name, text in cut().items():
        (EXCERPT / name).write_text(text)
        print(f"{name}: {len(text)} bytes")
