"""A Java file whose chosen methods report each call the tests make (spice_engine.strength
.traced): what the method was given (its receiver and arguments), what it returned or threw and
what its receiver and arguments hold afterwards, so a survivor whose method answers the tests'
own calls otherwise is shown, and one answering them all alike is held.

The method is kept under another name (`m` → `m$spice`, private, or `default` in an interface,
annotations left to the caller) and a method with its signature, annotations and modifiers
takes its place, written in front of it on its first line: it walks what it is given, calls the
kept one, walks what came back (a throwable is recorded and thrown again: a precise rethrow, so
the `throws` clause is the method's own). Constructors, methods without a body and old `int m()[]`
declarations are not traced. The walker (a package-private class appended to the file) reads
fields by reflection, the tree's objects' only (the JDK's are printed by `toString`, their
modules closed to reflection), sorts a map's entries and a set's elements, and cuts a cycle; it
is Java 7 source, as old builds compile. An object whose class says what equal means (its own
`equals`, and a `toString`), not a collection, is walked as what it prints, whatever its class:
Java's callers compare such values with `equals`, and an interface's contract (`ParameterizedType`,
`Map.Entry`) makes one implementation equal another's. gson-1391's wrong fix copies an owner
type it need not, the JDK's `ParameterizedTypeImpl` becoming gson's equal one: the same value
to every caller, no longer a difference. Lines are appended to `/tmp/<mark>` in the sandbox; the
first 200 calls of each method.
"""

from __future__ import annotations

import hashlib
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

FUNCTIONS = frozenset({"method_declaration", "constructor_declaration", "lambda_expression"})
CALLS_KEPT = 200


def traced(source: str, at: list[int], tag: str, mark: str) -> tuple[str, list[str]] | None:
    """`source` with the method holding each byte of `at` recording its calls, and the id of
    each byte's method; None when one is in no method that can be traced."""
    raw = source.encode()
    root = parsed("java", source).root_node
    methods: dict[int, Any] = {}
    ids: list[str] = []
    for byte in at:
        node = holding(root, byte, len(raw), frozenset({"method_declaration"}))
        inner = holding(root, byte, len(raw), FUNCTIONS)
        if node is None or inner is None or inner.start_byte != node.start_byte:
            return None  # a constructor, or a lambda's body (called as something else)
        if not _traceable(node):
            return None
        methods[node.start_byte] = node
        ids.append(ident(tag, node))
    cls = "SpiceTrace" + hashlib.sha256(raw).hexdigest()[:8]
    edits: list[Edit] = []
    for node in methods.values():
        edits += _method_edits(raw, node, ident(tag, node), cls)
    edits.append(Edit(len(raw), len(raw), "\n" + _helper(cls, mark)))
    return spliced(raw, edits), ids


def _traceable(node: Any) -> bool:
    return (
        node.child_by_field_name("body") is not None
        and node.child_by_field_name("dimensions") is None
    )


def _modifiers(node: Any) -> Any | None:
    return next((c for c in node.children if c.type == "modifiers"), None)


def _in_interface(node: Any) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("class_body", "interface_body"):
        parent = parent.parent
    return parent is not None and parent.type == "interface_body"


def _params(raw: bytes, node: Any) -> list[str]:
    names: list[str] = []
    for p in node.child_by_field_name("parameters").named_children:
        if p.type == "formal_parameter":
            names.append(text_of(raw, p.child_by_field_name("name")))
        elif p.type == "spread_parameter":
            declarator = next(c for c in p.named_children if c.type == "variable_declarator")
            names.append(text_of(raw, declarator.child_by_field_name("name")))
    return names


def _method_edits(raw: bytes, node: Any, key: str, cls: str) -> list[Edit]:
    mods = _modifiers(node)
    mod_text = text_of(raw, mods) if mods is not None else ""
    static = "static" in mod_text.split()
    name = node.child_by_field_name("name")
    kept = f"{text_of(raw, name)}$spice{node.start_point[0] + 1}"  # an override of it stays apart
    body = node.child_by_field_name("body")
    signature = _without_comments(raw, node, body.start_byte)
    returns = node.child_by_field_name("type")
    void = returns is not None and returns.type == "void_type"
    params = _params(raw, node)
    given = ", ".join(([] if static else ["this"]) + params)
    call = f"{kept}({', '.join(params)})"
    on, leave = f"{cls}.on({_java_string(key)})", f"{cls}.leave({_java_string(key)}, spiceE, "
    result = (
        f"{call}; if (spiceOn) {leave}null, spiceG); return;"
        if void
        else (
            f"{text_of(raw, returns)} spiceR = {call}; if (spiceOn) {leave}spiceR, spiceG); "
            "return spiceR;"
        )
    )
    wrapper = (
        " ".join(signature.split())
        + f" {{ boolean spiceOn = {on}; Object[] spiceG = new Object[]{{{given}}}; "
        f'String spiceE = spiceOn ? {cls}.walk(spiceG) : ""; try {{ {result} }} '
        f"catch (Throwable spiceT) {{ if (spiceOn) {leave}{cls}.thrown(spiceT), spiceG); "
        "throw spiceT; } } "
    )
    kind = ("static " if static else "") + ("default" if _in_interface(node) else "private")
    if _in_interface(node) and static:
        kind = "static"  # a static interface method (no private ones before Java 9)
    if mods is not None:
        newlines = "\n" * mod_text.count("\n")
        edits = [
            Edit(node.start_byte, node.start_byte, wrapper),
            Edit(mods.start_byte, mods.end_byte, kind + newlines),
        ]
    else:  # one insertion: two at one place could come out in either order
        edits = [Edit(node.start_byte, node.start_byte, wrapper + kind + " ")]
    edits.append(Edit(name.start_byte, name.end_byte, kept))
    return edits


def _without_comments(raw: bytes, node: Any, end: int) -> str:
    """`node`'s text up to byte `end`, each comment in it blanked: the stand-in's signature is
    written on one line, where a `// …` would swallow the rest (gson's `@SuppressWarnings(…)
    // Casts guarded by conditionals.` before `getTypeAdapter`)."""
    text = bytearray(raw[node.start_byte : end])
    stack = [node]
    while stack:
        n = stack.pop()
        if n.start_byte >= end:
            continue
        if n.type in ("line_comment", "block_comment", "comment"):
            for i in range(n.start_byte, min(n.end_byte, end)):
                text[i - node.start_byte] = 0x20
            continue
        stack.extend(n.children)
    return text.decode()


def _java_string(text: str) -> str:
    """`text` (a path of the tree's) as a Java string literal. Octal escapes, not `\\u`:
    Java reads those before the literal, so `\\u000a` would end the line in it."""
    body = "".join(
        c if c.isprintable() and c not in '"\\' else f"\\{ord(c):o}" if ord(c) < 256 else c
        for c in text
    )
    return f'"{body}"'


_HELPER = """final class CLS {
  private static final java.util.Map<String, Integer> CALLS = new java.util.HashMap<String, Integer>();
  private CLS() {}
  static synchronized boolean on(String id) {
    Integer n = CALLS.get(id);
    CALLS.put(id, n == null ? 1 : n + 1);
    if (n == null) write("MARK\\t" + id + "\\tentered\\n");
    return n == null || n < LIMIT;
  }
  static String thrown(Throwable t) { return "throws " + t.getClass().getName() + ": " + t.getMessage(); }
  static String walk(Object v) {
    StringBuilder b = new StringBuilder();
    step(b, v, 0, new java.util.IdentityHashMap<Object, Boolean>(), new int[] {WALKED});
    return b.toString();
  }
  private static boolean plain(Object v) {
    return v instanceof CharSequence || v instanceof Number || v instanceof Boolean
        || v instanceof Character || v instanceof Enum || v instanceof Class;
  }
  private static boolean valued(Class<?> c) {
    try {
      return c.getMethod("equals", Object.class).getDeclaringClass() != Object.class
          && c.getMethod("toString").getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
  private static boolean jdk(Class<?> c) {
    String n = c.getName();
    return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("sun.")
        || n.startsWith("jdk.") || n.startsWith("com.sun.");
  }
  private static void step(StringBuilder b, Object v, int depth, java.util.IdentityHashMap<Object, Boolean> seen, int[] left) {
    if (b.length() > 65536) return;
    if (--left[0] < 0) { b.append('~'); return; }
    if (v == null) { b.append("null"); return; }
    if (depth > 8) { b.append("..."); return; }
    Class<?> c = v.getClass();
    if (plain(v)) { b.append(c.getName()).append(':').append(String.valueOf(v)); return; }
    if (seen.containsKey(v)) { b.append("<cycle>"); return; }
    seen.put(v, Boolean.TRUE);
    try {
      if (c.isArray()) {
        int n = java.lang.reflect.Array.getLength(v);
        b.append('[');
        for (int i = 0; i < n && i < 4096; i++) { step(b, java.lang.reflect.Array.get(v, i), depth + 1, seen, left); b.append(','); }
        b.append(']');
      } else if (v instanceof java.util.Map) {
        java.util.List<String> pairs = new java.util.ArrayList<String>();
        for (Object o : ((java.util.Map<?, ?>) v).entrySet()) {
          java.util.Map.Entry<?, ?> e = (java.util.Map.Entry<?, ?>) o;
          StringBuilder p = new StringBuilder();
          step(p, e.getKey(), depth + 1, seen, left); p.append('='); step(p, e.getValue(), depth + 1, seen, left);
          pairs.add(p.toString());
        }
        java.util.Collections.sort(pairs);
        b.append(c.getName()).append(pairs);
      } else if (v instanceof java.util.Collection) {
        java.util.List<String> items = new java.util.ArrayList<String>();
        for (Object o : (java.util.Collection<?>) v) { StringBuilder p = new StringBuilder(); step(p, o, depth + 1, seen, left); items.add(p.toString()); }
        if (v instanceof java.util.Set) java.util.Collections.sort(items);
        b.append(c.getName()).append(items);
      } else if (valued(c)) {  // the tree's own toString may fail, or recurse without end
        try { b.append("value:").append(String.valueOf(v)); }
        catch (Throwable e) { b.append("<unreadable>"); }
      } else if (jdk(c)) {
        b.append(c.getName()).append(':').append(String.valueOf(v));
      } else {
        b.append(c.getName()).append('{');
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
          for (java.lang.reflect.Field f : k.getDeclaredFields()) {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
            b.append(f.getName()).append(':');
            try { f.setAccessible(true); step(b, f.get(v), depth + 1, seen, left); }
            catch (Exception e) { b.append('?'); }
            catch (LinkageError e) { b.append('?'); }
            b.append(',');
          }
        }
        b.append('}');
      }
    } catch (RuntimeException e) {
      b.append("<unreadable>");
    } finally {
      seen.remove(v);
    }
  }
  private static String hash(String s) {
    long h = 1125899906842597L;
    for (int i = 0; i < s.length(); i++) h = 31 * h + s.charAt(i);
    return Long.toHexString(h);
  }
  private static String mask(String s) { return s.replaceAll("[0-9]", "#"); }
  static void leave(String id, String entry, Object result, Object[] given) {
    String out = walk(result), left = walk(given);
    String line = "MARK\\t" + id + "\\t" + hash(entry) + "\\t" + hash(mask(entry)) + "\\t" + hash(out)
        + "\\t" + hash(mask(out)) + "\\t" + hash(left) + "\\t" + hash(mask(left)) + "\\n";
    write(line);
  }
  private static void write(String line) {
    synchronized (CLS.class) {
      java.io.FileOutputStream f = null;
      try {
        f = new java.io.FileOutputStream("/tmp/MARK", true);
        f.write(line.getBytes("UTF-8"));
      } catch (java.io.IOException e) {
        // nothing recorded: the run says nothing of this call
      } finally {
        if (f != null) { try { f.close(); } catch (java.io.IOException e) { } }
      }
    }
  }
}
"""


def _helper(cls: str, mark: str) -> str:
    return (
        _HELPER.replace("CLS", cls)
        .replace("LIMIT", str(CALLS_KEPT))
        .replace("WALKED", str(WALKED))
        .replace("MARK", mark)
    )


def callers(source: str, at: int) -> list[int]:
    """The file's callers of the private method holding byte `at` (spice_engine.langs
    .trace_edits.callers_in_file)."""
    return callers_in_file("java", source, at, frozenset({"method_declaration"}), _private)


def _private(raw: bytes, node: Any) -> bool:
    mods = _modifiers(node)
    return mods is not None and "private" in text_of(raw, mods).split()
