package org.kvlab.partitioning.operations;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The classification checked by sampling (seed 004's soundness condition): random operations of every type with
 * arguments from a small domain (so they collide), each placed at the server its partitioning parameter routes to
 * ({@code floorMod(hash(value), servers)}; a local type without parameter and a commutative one at a random server);
 * for every pair of local operations at different servers, neither writes a key the other writes or reads, and a
 * commutative operation conflicts with no operation at all. Keys are compared as instantiated templates ({@code *}
 * meets any value).
 */
public final class SoundnessCheck {
  private SoundnessCheck() {}

  record Op(OperationType type, Map<String, String> args, int server, OperationClass cls) {
    List<String[]> keys(List<KeyTemplate> ts) {
      List<String[]> out = new ArrayList<>();
      for (KeyTemplate t : ts) {
        String[] k = new String[t.segments().size()];
        for (int i = 0; i < k.length; i++) {
          KeyTemplate.Segment s = t.segments().get(i);
          k[i] = s.literal() != null ? s.literal() : s.param() != null ? args.get(s.param()) : "*";
        }
        out.add(k);
      }
      return out;
    }

    String describe() {
      return type.name() + args + "@" + server;
    }
  }

  /** The violations found among {@code samples} random operations (empty: none found). */
  public static List<String> check(OperationPartitioning.Result r, int servers, int samples, int domain, long seed) {
    Random random = new Random(seed);
    List<Op> ops = new ArrayList<>();
    for (int s = 0; s < samples; s++) {
      OperationPartitioning.Assignment a = r.assignments().get(random.nextInt(r.assignments().size()));
      Map<String, String> args = new HashMap<>();
      for (String p : a.type().params()) {
        args.put(p, "v" + random.nextInt(domain));
      }
      int server = a.param() != null && a.cls() != OperationClass.C
          ? Math.floorMod(args.get(a.param()).hashCode(), servers) : random.nextInt(servers);
      ops.add(new Op(a.type(), args, server, a.cls()));
    }
    List<String> violations = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      for (int j = i + 1; j < ops.size(); j++) {
        Op x = ops.get(i);
        Op y = ops.get(j);
        boolean commutative = x.cls() == OperationClass.C || y.cls() == OperationClass.C;
        boolean localApart = x.cls() == OperationClass.L && y.cls() == OperationClass.L && x.server() != y.server();
        if ((commutative || localApart) && conflict(x, y)) {
          violations.add(x.describe() + " and " + y.describe() + " conflict but are " + x.cls() + "/" + y.cls()
              + (localApart ? " at different servers" : ""));
        }
      }
    }
    return violations;
  }

  private static boolean conflict(Op x, Op y) {
    List<String[]> xw = x.keys(x.type().writes());
    List<String[]> yw = y.keys(y.type().writes());
    return overlap(xw, yw) || overlap(xw, y.keys(y.type().reads())) || overlap(yw, x.keys(x.type().reads()));
  }

  private static boolean overlap(List<String[]> as, List<String[]> bs) {
    for (String[] a : as) {
      for (String[] b : bs) {
        if (a.length == b.length && meets(a, b)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean meets(String[] a, String[] b) {
    for (int i = 0; i < a.length; i++) {
      if (!a[i].equals(b[i]) && !a[i].equals("*") && !b[i].equals("*")) {
        return false;
      }
    }
    return true;
  }
}
