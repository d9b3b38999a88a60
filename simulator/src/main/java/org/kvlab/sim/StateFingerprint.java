package org.kvlab.sim;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A 64-bit hash of a {@link ControlledRun}'s state, so that exploration visits each state once: every server's
 * protocol object (its fields, by reflection, or what its {@code exploreState()} returns), its store and kit state,
 * up or down and incarnation; every client's protocol object; the messages in flight on each link, in order; the
 * pending timers (owner, due time relative to now); the sessions waiting to invoke and the operations each session
 * completed (type, key, value, what it read, outcome). The clocks' absolute time is left out: two states that differ
 * only in when they happened are one state, unless the protocol stored a clock reading.
 *
 * <p>The generic walk follows fields into the protocol's own objects, collections (lists in order; maps and sets in
 * any order, except linked ones, which keep theirs), arrays, protobuf messages (their bytes), strings, numbers and
 * enums. It skips static and {@code transient} fields (the way to leave a cache out), the framework's plumbing (the
 * server's context, clocks, random sources, loggers, metrics, the store handle, lambdas) and, in the JDK's own
 * classes, anything but what is listed. A server or client whose state is not canonical this way (e.g. it keeps
 * equal data in different shapes) declares {@code public Object exploreState()}; its result is fingerprinted instead
 * of its fields.
 */
final class StateFingerprint {
  private StateFingerprint() {}

  private static final int MAX_DEPTH = 24;

  static long of(ControlledRun run) {
    Hasher h = new Hasher();
    visit(run, (kind, id, v) -> h.add(kind).add(id).add(v));
    return h.value();
  }

  /** The fingerprint's parts by name (a server, its store, a client, the links...), for saying which differs. */
  static Map<String, Long> parts(ControlledRun run) {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    visit(run, (kind, id, v) -> out.put(PART_NAMES[kind] + (id < 0 ? "" : " " + name(run, kind, id)), v));
    return out;
  }

  private static final String[] PART_NAMES = {"server", "store", "client", "links and timers", "sessions"};

  /** The name of part {@code kind}'s {@code id}-th owner: a server's node id, a client's session name. */
  private static String name(ControlledRun run, int kind, int id) {
    Simulation sim = run.simulation();
    return kind == 2 ? sim.sessions.get(id).name() : new ArrayList<>(sim.nodes.values()).get(id).id.toString();
  }

  /** Receives each part: its kind (an index of PART_NAMES), its owner's index (-1 for none), its hash. */
  private interface Parts {
    void part(int kind, int id, long value);
  }

  /** The parts of {@code run}'s state, in a fixed order. */
  private static void visit(ControlledRun run, Parts out) {
    Simulation sim = run.simulation();
    int i = 0;
    for (SimNode n : sim.nodes.values()) {
      out.part(0, i, n.server == null ? 0 : object(n.server));
      Hasher h = new Hasher();
      h.add(n.down ? 1 : 2).add(n.incarnation).add(n.pending.size());
      Map<String, byte[]> kit = n.kitState.scan("");
      h.add(kit.size());
      for (Map.Entry<String, byte[]> e : kit.entrySet()) {
        h.add(e.getKey()).add(bytes(e.getValue()));
      }
      for (String key : sim.writtenKeys) {
        for (Message v : n.store.versions(key)) {
          h.add(key).add(message(v));
        }
      }
      out.part(1, i++, h.value());
    }
    i = 0;
    for (SimSession s : sim.sessions) {
      out.part(2, i++, object(s.client));
    }
    Hasher h = new Hasher();
    for (Map.Entry<String, ArrayDeque<ControlledRun.InFlight>> e : run.links.entrySet()) {
      h.add(e.getKey()).add(e.getValue().size());
      for (ControlledRun.InFlight m : e.getValue()) {
        h.add(message(m.shown()));
      }
    }
    long clock = run.clockMicros();
    for (ControlledRun.PendingTimer t : run.timers) {
      if (t.live().getAsBoolean()) {
        h.add(t.owner()).add(t.due() - clock);
      }
    }
    out.part(3, -1, h.value());
    h = new Hasher();
    for (String s : run.invokes.keySet()) {
      h.add(s);
    }
    out.part(4, -1, h.add(completed(sim.history.build())).value());
  }

  /**
   * The hash of what each session's completed operations were and returned (type, key, value, what it read, outcome),
   * in order per session; not the real-time order between sessions.
   */
  static long completed(org.kvlab.history.History history) {
    java.util.TreeMap<Integer, Hasher> bySession = new java.util.TreeMap<>();
    for (org.kvlab.history.Operation op : history.operations()) {
      Hasher h = bySession.computeIfAbsent(op.session(), k -> new Hasher());
      h.add(op.type().ordinal()).add(op.key() == null ? "" : op.key()).add(op.value() == null ? 1 : bytes(op.value()));
      if (op.reads() != null) {
        h.add(op.reads().size());
        new java.util.TreeMap<>(op.reads()).forEach((k, v) -> h.add(k).add(v.isPresent() ? bytes(v.get()) : 3));
      }
      h.add(op.outcome().ordinal());
    }
    Hasher h = new Hasher();
    bySession.forEach((session, ops) -> h.add(session).add(ops.value()));
    return h.value();
  }

  static long bytes(ByteString b) {
    return bytes(b.size(), b::byteAt);
  }


  /** A mixing accumulator (order-sensitive). */
  static final class Hasher {
    private long h = 0x243F6A8885A308D3L;

    Hasher add(long v) {
      h = Long.rotateLeft((h ^ v) * 0x9E3779B97F4A7C15L, 29) * 0xBF58476D1CE4E5B9L;
      return this;
    }

    Hasher add(String s) {
      long x = s.length();
      for (int i = 0; i < s.length(); i++) {
        x = x * 31 + s.charAt(i);
      }
      return add(x);
    }

    long value() {
      long z = h;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  static long message(Message m) {
    return m == null ? 7 : bytes(m.toByteString()) ^ m.getClass().getName().hashCode();
  }

  static long bytes(byte[] b) {
    return bytes(b.length, i -> b[i]);
  }

  /** The hash of {@code n} bytes, the i-th {@code at.applyAsInt(i)}, taken eight at a time. */
  private static long bytes(int n, java.util.function.IntUnaryOperator at) {
    Hasher h = new Hasher();
    h.add(n);
    long word = 0;
    for (int i = 0; i < n; i++) {
      word = (word << 8) | (at.applyAsInt(i) & 0xff);
      if ((i & 7) == 7) {
        h.add(word);
        word = 0;
      }
    }
    return h.add(word).value();
  }


  /** The fingerprint of one protocol object (a server or a client). */
  static long object(Object o) {
    return new Walk().value(o, 0);
  }

  /** The hook: a class's {@code exploreState()} method, or null. */
  private static final ClassValue<Method> HOOK = new ClassValue<>() {
    @Override
    protected Method computeValue(Class<?> type) {
      try {
        Method m = type.getMethod("exploreState");
        return m.getParameterCount() == 0 ? m : null;
      } catch (NoSuchMethodException e) {
        return null;
      }
    }
  };

  /** The instance fields the walk follows, of a class and its superclasses below the framework's Server. */
  private static final ClassValue<Field[]> FIELDS = new ClassValue<>() {
    @Override
    protected Field[] computeValue(Class<?> type) {
      List<Field> out = new ArrayList<>();
      for (Class<?> c = type; c != null && c != Object.class && c != org.kvlab.api.Server.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          int mod = f.getModifiers();
          if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()) {
            continue;
          }
          try {
            f.setAccessible(true);
            out.add(f);
          } catch (RuntimeException e) {
            // a module that does not open it: left out
          }
        }
      }
      return out.toArray(new Field[0]);
    }
  };

  private static final class Walk {
    private final IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();

    long value(Object o, int depth) {
      if (o == null) {
        return 1;
      }
      if (o instanceof String s) {
        return new Hasher().add(s).value();
      }
      if (o instanceof Number || o instanceof Boolean || o instanceof Character) {
        return new Hasher().add(o.hashCode()).add(o.getClass().getSimpleName()).value();
      }
      if (o instanceof Enum<?> e) {
        return new Hasher().add(e.name()).value();
      }
      if (o instanceof ByteString b) {
        return bytes(b);
      }
      if (o instanceof Message m) {
        return message(m);
      }
      if (o instanceof java.util.concurrent.atomic.AtomicLong a) {
        return a.get();
      }
      if (o instanceof java.util.concurrent.atomic.AtomicInteger a) {
        return a.get();
      }
      if (o instanceof java.util.concurrent.atomic.AtomicBoolean a) {
        return a.get() ? 3 : 5;
      }
      if (skipped(o) || depth > MAX_DEPTH) {
        return 11;
      }
      if (seen.put(o, Boolean.TRUE) != null) {
        return 13; // a cycle, or the same object twice
      }
      try {
        return walk(o, depth + 1);
      } finally {
        seen.remove(o);
      }
    }

    private long walk(Object o, int depth) {
      Method hook = HOOK.get(o.getClass());
      if (hook != null && depth == 1) {
        try {
          hook.setAccessible(true);
          return value(hook.invoke(o), depth);
        } catch (ReflectiveOperationException | RuntimeException e) {
          throw new IllegalStateException(o.getClass().getName() + ".exploreState() failed: " + e, e);
        }
      }
      Hasher h = new Hasher();
      if (o instanceof Optional<?> opt) {
        return h.add(value(opt.orElse(null), depth)).value();
      }
      if (o instanceof Map<?, ?> map) {
        boolean ordered = o instanceof java.util.LinkedHashMap;
        long sum = 0;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          long entry = new Hasher().add(value(e.getKey(), depth)).add(value(e.getValue(), depth)).value();
          if (ordered) {
            h.add(entry);
          } else {
            sum += entry;
          }
        }
        return h.add(map.size()).add(sum).value();
      }
      if (o instanceof Collection<?> c) {
        boolean ordered = !(o instanceof java.util.Set) || o instanceof java.util.LinkedHashSet;
        long sum = 0;
        for (Object e : c) {
          if (ordered) {
            h.add(value(e, depth));
          } else {
            sum += value(e, depth);
          }
        }
        return h.add(c.size()).add(sum).value();
      }
      if (o.getClass().isArray()) {
        int n = java.lang.reflect.Array.getLength(o);
        h.add(n);
        for (int i = 0; i < n; i++) {
          h.add(value(java.lang.reflect.Array.get(o, i), depth));
        }
        return h.value();
      }
      if (o instanceof java.util.BitSet b) {
        for (long w : b.toLongArray()) {
          h.add(w);
        }
        return h.value();
      }
      String pkg = o.getClass().getPackageName();
      if (pkg.startsWith("java.") || pkg.startsWith("javax.") || pkg.startsWith("jdk.") || pkg.startsWith("sun.")) {
        return h.add(o.getClass().getName()).value(); // a JDK object not listed above: its kind only
      }
      h.add(o.getClass().getName());
      for (Field f : FIELDS.get(o.getClass())) {
        try {
          h.add(value(f.get(o), depth));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
      return h.value();
    }

    /** The framework's plumbing and things without state of the protocol's own. */
    private static boolean skipped(Object o) {
      Class<?> c = o.getClass();
      if (c.isSynthetic() || c.isHidden()) {
        return true; // lambdas
      }
      String pkg = c.getPackageName();
      return pkg.equals("org.kvlab.sim") || pkg.startsWith("org.kvlab.host") || pkg.startsWith("org.slf4j")
          || o instanceof org.kvlab.api.Clock || o instanceof java.util.Random || o instanceof org.kvlab.api.Metrics
          || o instanceof org.kvlab.api.ServerContext || o instanceof org.kvlab.api.ClientContext
          || o instanceof org.kvlab.store.VersionedStore || o instanceof java.util.concurrent.CompletableFuture
          || o instanceof Thread || o instanceof java.util.concurrent.Executor;
    }
  }
}
