"""The class a traced Java file (spice_engine.langs.java_trace) and a test file recording what
its calls got back (spice_engine.langs.java_received) append to themselves: it walks a value
into text and appends hashed lines to `/tmp/<mark>` in the sandbox.

The walk reads fields by reflection, the tree's objects' only (the JDK's are printed by
`toString`, their modules closed to reflection), sorts a map's entries and a set's elements,
and cuts a cycle. An object whose class says what equal means (its own `equals`, and a
`toString`), not a collection, is walked as what it prints, whatever its class: Java's callers
compare such values with `equals`, and an interface's contract (`ParameterizedType`,
`Map.Entry`) makes one implementation equal another's. gson-1391's wrong fix copies an owner
type it need not, the JDK's `ParameterizedTypeImpl` becoming gson's equal one: the same value
to every caller, no longer a difference. Java 7 source, as old builds compile; the first 200
records of each id.
"""

from __future__ import annotations

from spice_engine.langs.trace_edits import WALKED

CALLS_KEPT = 200

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
  private static final java.util.Map<Class<?>, Boolean> VALUED = new java.util.concurrent.ConcurrentHashMap<Class<?>, Boolean>();
  private static boolean valued(Class<?> c) {
    Boolean known = VALUED.get(c);
    if (known != null) return known;
    boolean found;
    try {
      found = c.getMethod("equals", Object.class).getDeclaringClass() != Object.class
          && c.getMethod("toString").getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      found = false;
    }
    VALUED.put(c, found);
    return found;
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
  static <T> T got(String id, T v) { received(id, v); return v; }
  static int got(String id, int v) { received(id, v); return v; }
  static long got(String id, long v) { received(id, v); return v; }
  static double got(String id, double v) { received(id, v); return v; }
  static float got(String id, float v) { received(id, v); return v; }
  static boolean got(String id, boolean v) { received(id, v); return v; }
  static char got(String id, char v) { received(id, v); return v; }
  static short got(String id, short v) { received(id, v); return v; }
  static byte got(String id, byte v) { received(id, v); return v; }
  private static void received(String id, Object v) {
    if (!on(id)) return;
    String w = walk(v);
    write("MARK\\t" + id + "\\tgot\\t" + hash(w) + "\\t" + hash(mask(w)) + "\\n");
  }
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


def helper(cls: str, mark: str) -> str:
    return (
        _HELPER.replace("CLS", cls)
        .replace("LIMIT", str(CALLS_KEPT))
        .replace("WALKED", str(WALKED))
        .replace("MARK", mark)
    )
