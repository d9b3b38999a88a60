package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
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
 * Tiny histories of a deliberately weak replicated store, to feed the checkers both valid and invalid histories:
 * each datacenter applies writes locally at once and replicates them to the others after a random delay, without
 * causal delivery; conflicts are resolved by last-writer-wins on (Lamport timestamp, dc) or — in "arrival" mode — by
 * whichever write arrives last (which lets datacenters diverge). Sessions usually stick to one datacenter but may
 * hop. One operation per microsecond tick.
 */
final class ReplicaSimulation {
  private ReplicaSimulation() {}

  private record Version(ByteString value, long ts, int dc) {
    boolean beats(Version o) {
      return o == null || ts > o.ts || (ts == o.ts && dc > o.dc);
    }
  }

  private record Arrival(long time, int dc, String key, Version v) {}

  static History run(long seed, int sessions, int dcs, int keys, int ops, boolean arrivalWins, int hopPercent) {
    Random rnd = new Random(seed);
    List<Map<String, Version>> store = new ArrayList<>();
    long[] clock = new long[dcs];
    for (int d = 0; d < dcs; d++) {
      store.add(new HashMap<>());
    }
    PriorityQueue<Arrival> inFlight = new PriorityQueue<>((a, b) -> Long.compare(a.time(), b.time()));
    List<Operation> out = new ArrayList<>();
    int values = 0;
    for (int t = 0; t < ops; t++) {
      while (!inFlight.isEmpty() && inFlight.peek().time() <= t) {
        Arrival a = inFlight.poll();
        Version cur = store.get(a.dc()).get(a.key());
        clock[a.dc()] = Math.max(clock[a.dc()], a.v().ts());
        if (arrivalWins || a.v().beats(cur)) {
          store.get(a.dc()).put(a.key(), a.v());
        }
      }
      int s = rnd.nextInt(sessions);
      int dc = rnd.nextInt(100) < hopPercent ? rnd.nextInt(dcs) : s % dcs;
      String key = "k" + rnd.nextInt(keys);
      int dice = rnd.nextInt(100);
      Map<String, Version> local = store.get(dc);
      if (dice < 45) {
        ByteString value = ByteString.copyFromUtf8("v" + values++);
        Version v = new Version(value, ++clock[dc], dc);
        Outcome outcome = rnd.nextInt(20) == 0 ? Outcome.INFO : Outcome.OK;
        local.put(key, v);
        for (int d = 0; d < dcs; d++) {
          if (d != dc) {
            inFlight.add(new Arrival(t + 1 + rnd.nextInt(8), d, key, v));
          }
        }
        out.add(new Operation(t, s, dc, Type.PUT, key, value, null, t, t, outcome, null));
      } else if (dice < 85) {
        Version v = local.get(key);
        out.add(new Operation(t, s, dc, Type.GET, key, null, Map.of(key, opt(v)), t, t, Outcome.OK, null));
      } else {
        Map<String, Optional<ByteString>> reads = new LinkedHashMap<>();
        reads.put(key, opt(local.get(key)));
        String other = "k" + rnd.nextInt(keys);
        reads.put(other, opt(local.get(other)));
        out.add(new Operation(t, s, dc, Type.ROTX, null, null, reads, t, t, Outcome.OK, null));
      }
    }
    return new History(out);
  }

  private static Optional<ByteString> opt(Version v) {
    return v == null ? Optional.empty() : Optional.of(v.value());
  }
}
