package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * Random histories of a single-copy store: every operation takes effect atomically at one instant inside its
 * interval (INFO PUTs: at some instant after invocation, possibly after the client gave up, or never), so the history
 * is linearizable and therefore valid for every checker. Sessions are sequential; ids follow invocation order. After
 * the load, every session reads a few keys once everything has settled (the final reads for convergence).
 */
final class RandomHistories {
  private RandomHistories() {}

  private static final class Pending {
    final int session;
    final int dc;
    final Type type;
    final String key;
    final ByteString value;
    final List<String> rotxKeys;
    final long invoke;
    final long complete;
    final Outcome outcome;
    final long effect; // Long.MAX_VALUE: never
    Map<String, Optional<ByteString>> reads;

    Pending(int session, int dc, Type type, String key, ByteString value, List<String> rotxKeys, long invoke,
        long complete, Outcome outcome, long effect) {
      this.session = session;
      this.dc = dc;
      this.type = type;
      this.key = key;
      this.value = value;
      this.rotxKeys = rotxKeys;
      this.invoke = invoke;
      this.complete = complete;
      this.outcome = outcome;
      this.effect = effect;
    }
  }

  static History linearizable(long seed, int sessions, int dcs, int keys, int operations) {
    Random rnd = new Random(seed);
    List<Pending> all = new ArrayList<>();
    long[] next = new long[sessions];
    PriorityQueue<Integer> ready = new PriorityQueue<>(Comparator.<Integer>comparingLong(s -> next[s])
        .thenComparingInt(s -> s));
    for (int s = 0; s < sessions; s++) {
      next[s] = rnd.nextInt(50);
      ready.add(s);
    }
    int values = 0;
    long lastEffect = 0;
    for (int i = 0; i < operations; i++) {
      int s = ready.poll();
      long invoke = next[s];
      long duration = 1 + rnd.nextInt(40);
      long complete = invoke + duration;
      long effect = invoke + rnd.nextInt((int) duration + 1);
      int dice = rnd.nextInt(100);
      String key = "k" + rnd.nextInt(keys);
      Pending p;
      if (dice < 45) {
        ByteString value = ByteString.copyFromUtf8("v" + values++);
        int fate = rnd.nextInt(100);
        if (fate < 2) { // INFO: applied later than the client waited, or never
          p = new Pending(s, s % dcs, Type.PUT, key, value, null, invoke, complete, Outcome.INFO,
              rnd.nextBoolean() ? Long.MAX_VALUE : invoke + rnd.nextInt(200));
        } else if (fate < 3) {
          p = new Pending(s, s % dcs, Type.PUT, key, value, null, invoke, complete, Outcome.FAIL, Long.MAX_VALUE);
        } else {
          p = new Pending(s, s % dcs, Type.PUT, key, value, null, invoke, complete, Outcome.OK, effect);
        }
      } else if (dice < 90) {
        boolean fail = rnd.nextInt(100) == 0;
        p = new Pending(s, s % dcs, Type.GET, key, null, null, invoke, complete, fail ? Outcome.FAIL : Outcome.OK,
            fail ? Long.MAX_VALUE : effect);
      } else {
        List<String> ks = new ArrayList<>();
        int n = 2 + rnd.nextInt(3);
        while (ks.size() < n && ks.size() < keys) {
          String k = "k" + rnd.nextInt(keys);
          if (!ks.contains(k)) {
            ks.add(k);
          }
        }
        p = new Pending(s, s % dcs, Type.ROTX, null, null, ks, invoke, complete, Outcome.OK, effect);
      }
      all.add(p);
      if (p.effect != Long.MAX_VALUE) {
        lastEffect = Math.max(lastEffect, p.effect);
      }
      next[s] = complete + 1 + rnd.nextInt(20);
      ready.add(s);
    }
    long quiet = Math.max(lastEffect, all.stream().mapToLong(p -> p.complete).max().orElse(0)) + 1000;
    for (int s = 0; s < sessions; s++) {
      for (int j = 0; j < 3; j++) {
        long invoke = quiet + s * 10L + j * 3;
        if (j == 2) {
          int k1 = rnd.nextInt(keys);
          int k2 = (k1 + 1) % keys;
          List<String> ks = k1 == k2 ? List.of("k" + k1) : List.of("k" + k1, "k" + k2);
          all.add(new Pending(s, s % dcs, Type.ROTX, null, null, ks, invoke, invoke + 2, Outcome.OK, invoke + 1));
        } else {
          all.add(new Pending(s, s % dcs, Type.GET, "k" + rnd.nextInt(keys), null, null, invoke, invoke + 2,
              Outcome.OK, invoke + 1));
        }
      }
    }

    // apply effects to the single copy in effect order
    List<Pending> byEffect = new ArrayList<>(all);
    byEffect.removeIf(p -> p.effect == Long.MAX_VALUE);
    byEffect.sort(Comparator.comparingLong(p -> p.effect));
    Map<String, ByteString> store = new HashMap<>();
    for (Pending p : byEffect) {
      switch (p.type) {
        case PUT -> store.put(p.key, p.value);
        case GET -> p.reads = Map.of(p.key, Optional.ofNullable(store.get(p.key)));
        case ROTX -> {
          Map<String, Optional<ByteString>> r = new LinkedHashMap<>();
          for (String k : p.rotxKeys) {
            r.put(k, Optional.ofNullable(store.get(k)));
          }
          p.reads = Collections.unmodifiableMap(r);
        }
      }
    }

    all.sort(Comparator.<Pending>comparingLong(p -> p.invoke).thenComparingInt(p -> p.session));
    List<Operation> ops = new ArrayList<>();
    for (int id = 0; id < all.size(); id++) {
      Pending p = all.get(id);
      boolean ok = p.outcome == Outcome.OK;
      ops.add(new Operation(id, p.session, p.dc, p.type, p.key, p.value, ok && p.type != Type.PUT ? p.reads : null,
          p.invoke, p.complete, p.outcome, ok ? null : p.outcome == Outcome.INFO ? "timeout" : "rejected"));
    }
    return new History(ops);
  }
}
