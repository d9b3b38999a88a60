package org.kvlab.partitioning.operations;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A key template of a transaction type: segments separated by {@code :}, each a literal, a parameter {@code {p}} or
 * {@code *} (any value: the template does not bind it, as a WHERE clause without that attribute). {@code cart:{c}}
 * names the cart of parameter c; {@code stock:*} every stock key; {@code order:{c}:*} every order of cart c. Two
 * templates can name the same key when they have as many segments and every pair of segments can be equal; the
 * condition is a conjunction of equalities between parameters (and of parameters with literals): Alg. 1's
 * predicates, over keys instead of SQL rows (seed 004 §3; the digest's "Alg. 1 over key templates").
 */
public record KeyTemplate(String text, List<Segment> segments) {

  /** One segment: exactly one of {@code literal} and {@code param} is non-null, or neither for {@code *}. */
  public record Segment(String literal, String param) {
    boolean any() {
      return literal == null && param == null;
    }
  }

  /** Parses {@code text}; every parameter must be one of {@code params}. */
  public static KeyTemplate parse(String text, Set<String> params) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("an empty key template. Fix: e.g. cart:{c}");
    }
    List<Segment> segs = new ArrayList<>();
    for (String s : text.split(":", -1)) {
      if (s.equals("*")) {
        segs.add(new Segment(null, null));
      } else if (s.startsWith("{") && s.endsWith("}") && s.length() > 2) {
        String p = s.substring(1, s.length() - 1);
        if (!params.contains(p)) {
          throw new IllegalArgumentException("key template " + text + " names parameter {" + p + "}, which is not"
              + " among the type's parameters " + params + ". Fix: declare it in params, or use * for any value");
        }
        segs.add(new Segment(null, p));
      } else if (s.isEmpty() || s.contains("{") || s.contains("}") || s.contains("*")) {
        throw new IllegalArgumentException("key template " + text + ": segment '" + s + "' is neither a literal, {param}"
            + " nor *. Fix: separate segments with ':', e.g. order:{c}:*");
      } else {
        segs.add(new Segment(s, null));
      }
    }
    return new KeyTemplate(text, List.copyOf(segs));
  }

  /**
   * The condition under which this template (of an operation whose parameters are named {@code mine}) and
   * {@code other} (parameters named {@code theirs}) name the same key, or null if they never do.
   */
  Clause unify(KeyTemplate other, String mine, String theirs) {
    if (segments.size() != other.segments.size()) {
      return null;
    }
    Clause c = Clause.TRUE;
    for (int i = 0; i < segments.size(); i++) {
      Segment a = segments.get(i);
      Segment b = other.segments.get(i);
      if (a.any() || b.any()) {
        continue;
      }
      if (a.literal != null && b.literal != null) {
        if (!a.literal.equals(b.literal)) {
          return null;
        }
      } else if (a.param != null && b.param != null) {
        c = c.and(Clause.equal(mine + "." + a.param, theirs + "." + b.param));
      } else {
        c = a.param != null ? c.and(Clause.constant(mine + "." + a.param, b.literal))
            : c.and(Clause.constant(theirs + "." + b.param, a.literal));
      }
      if (c == null) {
        return null;
      }
    }
    return c;
  }

  /** Whether {@code key} is a key this template names for the arguments {@code args}. */
  public boolean matches(String key, Map<String, String> args) {
    String[] parts = key.split(":", -1);
    if (parts.length != segments.size()) {
      return false;
    }
    for (int i = 0; i < parts.length; i++) {
      Segment s = segments.get(i);
      if (s.literal != null && !s.literal.equals(parts[i])) {
        return false;
      }
      if (s.param != null && !parts[i].equals(args.get(s.param))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return text;
  }
}
