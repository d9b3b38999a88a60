package org.kvlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.Session;
import org.kvlab.history.History;
import org.kvlab.runtime.ClientRuntime;

/**
 * The convergence run of the protocols' loopback cluster tests (2 datacenters): 8 sessions, 4 in each
 * datacenter, write 500 values each to 200 overlapping keys at once; after the writes stop, every key is read in
 * both datacenters until they agree (30 s at most); each final value must be one somebody wrote. Returns the
 * recorded history (every operation, in the simulator's format) for the protocol's own checkers.
 */
public final class ConcurrentWrites {
  private ConcurrentWrites() {}

  public static History writeAndAwaitConvergence(ClientRuntime clients) throws Exception {
    History.Recorder recorder = new History.Recorder();
    clients.recordHistory(recorder);
    int keys = 200;
    Map<String, List<String>> written = new HashMap<>();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      int dc = s % 2;
      Session session = clients.openSession(dc);
      Random random = new Random(s);
      List<String[]> plan = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        String key = "key" + random.nextInt(keys);
        String value = "s" + s + "-" + i + "@dc" + dc;
        plan.add(new String[] {key, value});
        written.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
      }
      writers.add(CompletableFuture.runAsync(() -> {
        for (String[] kv : plan) {
          session.put(kv[0], ByteString.copyFromUtf8(kv[1]));
        }
      }));
    }
    CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    Session dc0 = clients.openSession(0);
    Session dc1 = clients.openSession(1);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<String> diverged = new ArrayList<>(written.keySet());
    while (!diverged.isEmpty() && System.nanoTime() < deadline) {
      List<String> still = new ArrayList<>();
      for (String key : diverged) {
        if (!dc0.get(key).equals(dc1.get(key))) {
          still.add(key);
        }
      }
      diverged = still;
      if (!diverged.isEmpty()) {
        Thread.sleep(50);
      }
    }
    assertEquals(List.of(), diverged, "keys whose replicas still disagree after writes stopped");
    for (Map.Entry<String, List<String>> e : written.entrySet()) {
      Optional<ByteString> v = dc0.get(e.getKey());
      assertTrue(v.isPresent() && e.getValue().contains(v.get().toStringUtf8()),
          e.getKey() + " holds " + v + ", which nobody wrote");
    }
    History history = recorder.build();
    assertTrue(history.size() >= 4000 + written.size(), "history records every operation: " + history.size());
    return history;
  }
}
