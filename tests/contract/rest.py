"""Check one REST exchange with the fake against GitHub's REST description (the excerpt).

A request is matched to its operation by path template; its query parameters, path
parameters and JSON body, and the answer's status and JSON body, are validated with
openapi-schema-validator (OpenAPI 3.0 schemas: `nullable`, `$ref` into components). Each
drift is one line naming the operation and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema.exceptions import ValidationError, best_match
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

EXCERPT = Path(__file__).resolve().parents[1] / "data" / "github" / "rest-openapi.json"
BASE = "urn:github-rest"
GITHUB_WIDE = {301, 307, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504}
"""Statuses GitHub may send for any operation (a renamed repository's redirects, bad token,
a repository that does not exist or is hidden from the token, an empty repository's 409 "Git
Repository is empty.", secondary limits, outages) though not every operation lists them; their
body must still be GitHub's `basic-error`."""
API_VERSION = "2022-11-28"
"""What every API request names in `X-GitHub-Api-Version` (GitHub's REST versioning)."""
_REQUIRED = re.compile(r"^'([^']+)' is a required property")


def _short(message: str) -> str:
    """The reason, which jsonschema puts after a repr of the whole instance."""
    return message if len(message) <= 240 else "..." + message[-240:]


class Operation:
    def __init__(self, method: str, template: str, spec: dict[str, Any], doc: RestContract):
        self.method, self.template, self.spec, self._doc = method, template, spec, doc
        names = re.findall(r"{([^}]+)}", template)
        params = [doc.resolve(p) for p in spec.get("parameters", [])]
        self.params = {(p["in"], p["name"]): p for p in params}
        pattern = re.escape(template)
        for name in names:
            multi = self.params.get(("path", name), {}).get("x-multi-segment")
            pattern = pattern.replace(
                re.escape(f"{{{name}}}"), f"(?P<{name}>{'.+' if multi else '[^/]+'})"
            )
        self.regex = re.compile(pattern + "$")
        self.literal = len(template) - sum(len(n) + 2 for n in names)

    @property
    def name(self) -> str:
        return f"{self.spec.get('operationId', '?')} ({self.method.upper()} {self.template})"


def _field(error: ValidationError) -> str:
    path = error.json_path
    missing = _REQUIRED.match(error.message)
    if missing:
        path = f"{path}.{missing.group(1)}"
    return path


def _coerce(value: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


def _nullable_compositions(node: Any) -> Any:
    """`nullable` next to `oneOf`/`anyOf` with no `type` means "or null" in GitHub's
    description (e.g. a commit's `author`), though OpenAPI 3.0.3 gives it no effect there."""
    if isinstance(node, list):
        return [_nullable_compositions(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _nullable_compositions(v) for k, v in node.items()}
    if node.get("nullable") is True and None not in node.get("enum", [None]):
        # A nullable enum (a check run's `conclusion` while it runs) allows null, though a
        # strict reading of OpenAPI 3.0.3 would have null listed among its values.
        node["enum"] = [*node["enum"], None]
    composed = any(k in node for k in ("oneOf", "anyOf", "allOf", "$ref"))
    if node.get("nullable") is True and "type" not in node and composed:
        rest = {k: v for k, v in node.items() if k != "nullable"}
        return {"anyOf": [rest, {"enum": [None]}]}
    return node


class RestContract:
    def __init__(self, spec: dict[str, Any]) -> None:
        spec = _nullable_compositions(spec)
        self.spec = spec
        self._registry: Registry[Any] = Registry().with_resource(
            BASE, Resource(contents=spec, specification=DRAFT4)
        )
        self.operations = [
            Operation(method, template, op, self)
            for template, item in spec["paths"].items()
            for method, op in item.items()
        ]
        self._validators: dict[str, OAS30Validator] = {}

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target: Any = self.spec
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        found = [
            (op, m.groupdict())
            for op in self.operations
            if op.method == method.lower() and (m := op.regex.match(path))
        ]
        found.sort(key=lambda pair: -pair[0].literal)  # `/issues/comments/{id}` over `/{n}`
        return found[0] if found else None

    def _errors(self, schema: dict[str, Any], instance: Any, where: str) -> list[str]:
        key = json.dumps(schema, sort_keys=True)
        validator = self._validators.get(key)
        if validator is None:
            # Resolved from the description's own base, where `#/components/...` points.
            resolver = self._registry.resolver(base_uri=BASE)
            validator = OAS30Validator(schema, registry=self._registry, _resolver=resolver)
            self._validators[key] = validator
        # A `oneOf` miss says little by itself: report its most relevant branch's error.
        found = [best_match([e]) for e in validator.iter_errors(instance)]
        errors = sorted(found, key=lambda e: e.json_path)
        return [f"{where}: field {_field(e)}: {_short(e.message)}" for e in errors[:5]]

    def check_request(self, method: str, path: str, query: dict[str, str], body: Any) -> list[str]:
        found = self.match(method, path)
        if found is None:
            return [f"undocumented operation {method} {path}"]
        op, args = found
        problems = []
        for name, value in args.items():
            schema = op.params[("path", name)].get("schema", {})
            problems += self._errors(schema, _coerce(value, schema), f"{op.name} path {{{name}}}")
        for name, value in query.items():
            param = op.params.get(("query", name))
            if param is None:
                problems.append(f"{op.name} request: undocumented query parameter {name!r}")
                continue
            schema = param.get("schema", {})
            problems += self._errors(schema, _coerce(value, schema), f"{op.name} query {name}")
        request = op.spec.get("requestBody")
        if request is None:
            if body is not None:
                problems.append(f"{op.name} request: a body where none is documented")
            return problems
        request = self.resolve(request)
        if body is None:
            if request.get("required"):
                problems.append(f"{op.name} request: the required body is missing")
            return problems
        schema = request["content"]["application/json"]["schema"]
        return problems + self._errors(schema, body, f"{op.name} request body")

    def check_response(self, method: str, path: str, status: int, body: Any) -> list[str]:
        found = self.match(method, path)
        if found is None:
            return []  # the request's own check names the undocumented operation
        op = found[0]
        answer = op.spec["responses"].get(str(status))
        where = f"{op.name} response {status}"
        if answer is None:
            if status not in GITHUB_WIDE:
                return [f"{where}: status not documented for this operation"]
            schema = {"$ref": "#/components/schemas/basic-error"}
            return self._errors(schema, body, where) if isinstance(body, dict) else []
        content = self.resolve(answer).get("content") or {}
        json_content = content.get("application/json")
        if json_content is None or not isinstance(body, dict | list):
            return []  # no JSON documented (204, 304) or a text answer (`.diff`)
        return self._errors(json_content.get("schema", {}), body, where)


def version_problem(method: str, path: str, headers: Mapping[str, str]) -> str | None:
    """A request that does not name the API version it was written for. The sign-in's pages
    (`/login/...`) are github.com's web, which a browser asks for, not its API."""
    if headers.get("X-GitHub-Api-Version") == API_VERSION or path.startswith("/login/"):
        return None
    return f"{method} {path}: no X-GitHub-Api-Version: {API_VERSION}"


@cache
def rest_contract() -> RestContract:
    return RestContract(json.loads(EXCERPT.read_text()))
