"""A Go file whose chosen functions report each call the tests make (spice_engine.strength
.traced): what the function was given, what it returned and what it left in its receiver and
arguments, so a survivor whose function answers the tests' own calls otherwise is shown on
evidence a caller could see, and one that answers them all alike is held.

Each function holding a chosen byte (a declaration, a method or a function literal) gets, at the
start of its body, a call recording its receiver and arguments and a deferred one recording them
again with its results; its results are named for that (`(int, error)` → `(spiceV0 int, spiceV1
error)`, which changes no `return`), and so are unnamed or `_` parameters. A panic is recorded
and raised again as it was. The recorder (helpers appended to the file, their imports on the
package clause's line: every line keeps its number) appends walks of the values, hashed, to
`/tmp/<mark>` in the sandbox (not the standard error a test may read from a program it runs),
one line a call begun with the run's mark (a nonce in it), the first 200
calls of each function. A walk follows pointers (not into a cycle), sorts a map's entries, reads
unexported fields, and prints no address: it is the same in two runs of the same calls.
"""

from __future__ import annotations

from typing import Any

from spice_engine.langs.trace_edits import (
    WALKED,
    Edit,
    callers_in_file,
    holding,
    ident,
    parsed,
    spliced,
    text_of,
)

FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
CALLS_KEPT = 200
"""Calls of one function recorded in one test process (a hot loop's millionth call adds no
evidence, and each walk costs time)."""


def traced(source: str, at: list[int], tag: str, mark: str) -> tuple[str, list[str]] | None:
    """`source` with the innermost function holding each byte of `at` recording its calls, and
    the id of each byte's function (`tag:line:column` of its `func`); None when a byte is in no
    function with a body or the file has no package clause. `tag` names the file (its path)."""
    raw = source.encode()
    root = parsed("go", source).root_node
    package = next((c for c in root.children if c.type == "package_clause"), None)
    if package is None:
        return None
    functions: dict[int, Any] = {}
    ids: list[str] = []
    for byte in at:
        node = holding(root, byte, len(raw), FUNCTIONS)
        if node is None or node.child_by_field_name("body") is None:
            return None
        functions[node.start_byte] = node
        ids.append(ident(tag, node))
    suffix = _suffix(raw)
    edits: list[Edit] = []
    for node in functions.values():
        edits += _function_edits(raw, node, ident(tag, node), suffix)
    edits.append(Edit(package.end_byte, package.end_byte, "; " + _imports(suffix)))
    edits.append(Edit(len(raw), len(raw), "\n" + _helpers(suffix, mark)))
    return spliced(raw, edits), ids


def _suffix(raw: bytes) -> str:
    """What makes the helpers' names the file's own (two traced files of one package)."""
    import hashlib

    return hashlib.sha256(raw).hexdigest()[:8]


def _function_edits(raw: bytes, node: Any, key: str, suffix: str) -> list[Edit]:
    edits: list[Edit] = []
    given: list[str] = []
    receiver = node.child_by_field_name("receiver")
    if receiver is not None:
        given += _named(raw, receiver, "spiceR", edits)
    given += _named(raw, node.child_by_field_name("parameters"), "spiceA", edits)
    results: list[str] = []
    result = node.child_by_field_name("result")
    if result is not None and result.type == "parameter_list":
        results = _named(raw, result, "spiceV", edits)
    elif result is not None:
        kind = text_of(raw, result)
        edits.append(Edit(result.start_byte, result.end_byte, f"(spiceV0 {kind})"))
        results = ["spiceV0"]
    body = node.child_by_field_name("body")
    values = "[]interface{}{" + ", ".join(given) + "}"
    out = "[]interface{}{" + ", ".join(results) + "}"
    enter, leave = f"spiceEnter{suffix}", f"spiceLeave{suffix}"
    record = (
        f"spiceIn := {enter}({_go_string(key)}, {values}); defer func() {{ "
        f"if spiceP := recover(); spiceP != nil {{ {leave}(spiceIn, {values}, "
        f'[]interface{{}}{{"panic", spiceP}}); panic(spiceP) }}; '
        f"{leave}(spiceIn, {values}, {out}) }}(); "
    )
    edits.append(Edit(body.start_byte + 1, body.start_byte + 1, record))
    return edits


def _named(raw: bytes, params: Any, prefix: str, edits: list[Edit]) -> list[str]:
    """The names of `params`' values, each unnamed or `_` one given `prefix` and its place."""
    names: list[str] = []
    for decl in params.named_children:
        if decl.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        idents = decl.children_by_field_name("name")
        if not idents:
            kind = decl.child_by_field_name("type")
            name = f"{prefix}{len(names)}"
            start = decl.start_byte if kind is None else kind.start_byte
            if decl.type == "variadic_parameter_declaration":
                start = decl.start_byte  # before the `...`
            edits.append(Edit(start, start, name + " "))
            names.append(name)
            continue
        for token in idents:
            text = text_of(raw, token)
            if text == "_":
                text = f"{prefix}{len(names)}"
                edits.append(Edit(token.start_byte, token.end_byte, text))
            names.append(text)
    return names


def _go_string(text: str) -> str:
    """`text` (a path of the tree's) as a Go string literal: a quote, a backslash or a control
    character in it stays text."""
    body = "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in text)
    return f'"{body}"'


_PACKAGES = ("fmt", "hash/fnv", "os", "reflect", "sort", "strconv", "strings", "sync")


def _imports(suffix: str) -> str:
    names = "; ".join(f'spice{p.rsplit("/", 1)[-1]}{suffix} "{p}"' for p in _PACKAGES)
    return f"import ({names})"


_HELPERS = """
var spiceMuN spicesyncN.Mutex
var spiceCallsN = map[string]int{}

type spiceCallN struct {
	id, entry, masked string
	on                bool
}

func spiceEnterN(id string, given []interface{}) spiceCallN {
	spiceMuN.Lock()
	n := spiceCallsN[id]
	spiceCallsN[id] = n + 1
	spiceMuN.Unlock()
	if n == 0 { // called, whether or not it returns (a loop serving until the end)
		spiceWriteN("MARK\t" + id + "\tentered")
	}
	if n >= LIMIT {
		return spiceCallN{}
	}
	walk := spiceWalkN(given)
	return spiceCallN{id, spiceHashN(walk), spiceHashN(spiceMaskN(walk)), true}
}

func spiceLeaveN(call spiceCallN, given []interface{}, results []interface{}) {
	if !call.on {
		return
	}
	out, left := spiceWalkN(results), spiceWalkN(given)
	line := spicestringsN.Join([]string{"MARK", call.id, call.entry, call.masked,
		spiceHashN(out), spiceHashN(spiceMaskN(out)), spiceHashN(left), spiceHashN(spiceMaskN(left))}, "\\t")
	spiceWriteN(line)
}

func spiceWriteN(line string) {
	spiceMuN.Lock()
	defer spiceMuN.Unlock()
	f, err := spiceosN.OpenFile("/tmp/MARK", spiceosN.O_APPEND|spiceosN.O_CREATE|spiceosN.O_WRONLY, 0644)
	if err == nil {
		f.Write([]byte(line + "\\n"))
		f.Close()
	}
}

func spiceHashN(s string) string {
	h := spicefnvN.New64a()
	h.Write([]byte(s))
	return spicestrconvN.FormatUint(h.Sum64(), 16)
}

func spiceMaskN(s string) string {
	return spicestringsN.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}, s)
}

func spiceWalkN(v interface{}) string {
	var b spicestringsN.Builder
	left := WALKED
	spiceStepN(&b, spicereflectN.ValueOf(v), 0, map[uintptr]bool{}, &left)
	return b.String()
}

func spiceStepN(b *spicestringsN.Builder, v spicereflectN.Value, depth int, seen map[uintptr]bool, left *int) {
	if b.Len() > 1<<16 {
		return
	}
	if *left--; *left < 0 {
		b.WriteString("~")
		return
	}
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	if depth > 10 {
		b.WriteString("...")
		return
	}
	switch v.Kind() {
	case spicereflectN.Bool:
		b.WriteString(spicestrconvN.FormatBool(v.Bool()))
	case spicereflectN.Int, spicereflectN.Int8, spicereflectN.Int16, spicereflectN.Int32, spicereflectN.Int64:
		b.WriteString(spicestrconvN.FormatInt(v.Int(), 10))
	case spicereflectN.Uint, spicereflectN.Uint8, spicereflectN.Uint16, spicereflectN.Uint32, spicereflectN.Uint64:
		b.WriteString(spicestrconvN.FormatUint(v.Uint(), 10))
	case spicereflectN.Float32, spicereflectN.Float64:
		b.WriteString(spicestrconvN.FormatFloat(v.Float(), 'g', -1, 64))
	case spicereflectN.Complex64, spicereflectN.Complex128:
		b.WriteString(spicefmtN.Sprint(v.Complex()))
	case spicereflectN.String:
		b.WriteString(spicestrconvN.Quote(v.String()))
	case spicereflectN.Ptr:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		p := v.Pointer()
		if seen[p] {
			b.WriteString("<cycle>")
			return
		}
		seen[p] = true
		b.WriteString("&")
		spiceStepN(b, v.Elem(), depth+1, seen, left)
		delete(seen, p)
	case spicereflectN.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString(v.Elem().Type().String() + ":")
		spiceStepN(b, v.Elem(), depth+1, seen, left)
	case spicereflectN.Struct:
		t := v.Type()
		b.WriteString(t.String() + "{")
		for i := 0; i < v.NumField(); i++ {
			b.WriteString(t.Field(i).Name + ":")
			spiceStepN(b, v.Field(i), depth+1, seen, left)
			b.WriteString(",")
		}
		b.WriteString("}")
	case spicereflectN.Slice, spicereflectN.Array:
		if v.Kind() == spicereflectN.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := 0; i < v.Len() && i < 4096; i++ {
			spiceStepN(b, v.Index(i), depth+1, seen, left)
			b.WriteString(",")
		}
		b.WriteString("]")
	case spicereflectN.Map:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		// Keys in their printed order before any value is walked: the walk's bound cuts
		// the same values in every run, whatever order the map gives its keys in.
		keys := v.MapKeys()
		named := make([]string, len(keys))
		for i, k := range keys {
			var kb spicestringsN.Builder
			spiceStepN(&kb, k, depth+1, seen, left)
			named[i] = kb.String()
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		spicesortN.SliceStable(order, func(i, j int) bool { return named[order[i]] < named[order[j]] })
		var pairs []string
		for _, i := range order {
			var vb spicestringsN.Builder
			spiceStepN(&vb, v.MapIndex(keys[i]), depth+1, seen, left)
			pairs = append(pairs, named[i]+"="+vb.String())
		}
		spicesortN.Strings(pairs) // keys printed alike: their values decide
		b.WriteString("map[" + spicestringsN.Join(pairs, ",") + "]")
	case spicereflectN.Func:
		if v.IsNil() {
			b.WriteString("func(nil)")
		} else {
			b.WriteString("func")
		}
	default: // a channel, an unsafe pointer, a uintptr: where, not what
		b.WriteString(v.Kind().String())
	}
}
"""


def _helpers(suffix: str, mark: str) -> str:
    text = (
        _HELPERS.replace("LIMIT", str(CALLS_KEPT))
        .replace("WALKED", str(WALKED))
        .replace("MARK", mark)
    )
    for name in ("Mu", "Write", "Calls", "Call", "Enter", "Leave", "Hash", "Mask", "Walk", "Step"):
        text = text.replace(f"spice{name}N", f"spice{name}{suffix}")
    for package in _PACKAGES:
        short = package.rsplit("/", 1)[-1]
        text = text.replace(f"spice{short}N.", f"spice{short}{suffix}.")
    return text


def callers(source: str, at: int) -> list[int]:
    """The file's callers of the unexported function holding byte `at` (spice_engine.langs
    .trace_edits.callers_in_file)."""
    return callers_in_file("go", source, at, FUNCTIONS, _unexported)


def _unexported(raw: bytes, node: Any) -> bool:
    name = text_of(raw, node.child_by_field_name("name"))
    return name[:1].islower() or name[:1] == "_"
