package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.VersionKey;
import org.kvlab.testing.TestRecord;

class JeStoreTest extends VersionedStoreContract {
  @TempDir Path tmp;

  @Override
  protected VersionedStore<TestRecord> newStore() {
    return new JeStore<>(TYPE, tmp.resolve("store"), Durability.NONE);
  }

  private JeStore<TestRecord> reopen(Path dir) {
    return new JeStore<>(TYPE, dir, Durability.NONE);
  }

  @Test
  void when_directory_does_not_exist_then_it_is_created() {
    Path dir = tmp.resolve("a/b/c");
    try (JeStore<TestRecord> s = reopen(dir)) {
      s.put("k", rec(1, 0));
    }
    assertTrue(Files.isDirectory(dir));
    try (JeStore<TestRecord> s = reopen(dir)) {
      assertEquals(List.of(rec(1, 0)), s.versions("k"));
    }
  }

  @Test
  void when_closed_and_reopened_then_versions_and_pruning_survive() {
    for (int i = 0; i < 200; i++) {
      store.put("k" + (i % 20), rec(i, i % 2));
    }
    store.put("", rec(-1, 0, "empty key"));
    store.prune("k3", r -> r.getUt() <= 103);
    List<TestRecord> k3 = store.versions("k3");
    List<TestRecord> k4 = store.versions("k4");
    store.close();

    try (JeStore<TestRecord> s = reopen(tmp.resolve("store"))) {
      assertEquals(21, s.keyCount());
      assertEquals(k3, s.versions("k3"));
      assertEquals(k4, s.versions("k4"));
      assertEquals(10, s.versions("k4").size());
      assertEquals(rec(-1, 0, "empty key"), s.newest("").orElseThrow());
      // the no-silent-drop check works against versions read back from disk
      s.put("k4", rec(4, 0));
      assertThrows(InvariantViolation.class, () -> s.put("k4", rec(4, 0, "different")));
    }
  }

  @Test
  void when_reopened_then_theKitStateKeepsItsPutsAndRemoves_andAPrefixScanReturnsOnlyItsNames() {
    KitState kit = ((JeStore<TestRecord>) store).kitState();
    kit.put("map/a/1", new byte[] {1});
    kit.put("map/a/2", new byte[] {2});
    kit.put("map/ab/1", new byte[] {3});
    kit.put("slot/x", new byte[] {4});
    kit.remove("map/a/1");
    kit.remove("map/a/absent");
    store.close();
    try (JeStore<TestRecord> s = reopen(tmp.resolve("store"))) {
      java.util.SortedMap<String, byte[]> a = s.kitState().scan("map/a/");
      assertEquals(List.of("map/a/2"), List.copyOf(a.keySet()));
      assertEquals(2, a.get("map/a/2")[0]);
      assertEquals(List.of("map/a/2", "map/ab/1"), List.copyOf(s.kitState().scan("map/a").keySet()));
      assertEquals(4, s.kitState().get("slot/x")[0]);
    }
  }

  @Test
  void when_env_files_are_copied_after_sync_then_the_copy_has_everything_synced() throws IOException {
    for (int i = 0; i < 1_000; i++) {
      store.put("k" + (i % 10), rec(i, 0));
    }
    store.sync();
    // A copy of the live directory is what a crash right now would leave behind (no close, no checkpoint).
    Path copy = tmp.resolve("copy");
    Files.createDirectories(copy);
    try (Stream<Path> files = Files.list(tmp.resolve("store"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().endsWith(".jdb")) {
          Files.copy(f, copy.resolve(f.getFileName()));
        }
      }
    }
    try (JeStore<TestRecord> s = reopen(copy)) {
      assertEquals(10, s.keyCount());
      for (int k = 0; k < 10; k++) {
        assertEquals(100, s.versions("k" + k).size());
        assertEquals(990 + k, s.newest("k" + k).orElseThrow().getUt());
      }
    }
  }

  /**
   * 100 unsynced puts stay in JE's log buffer, so without sync() the synced ones would be lost too (this
   * test fails if sync() does nothing); 20,000 overflow the buffer, so some unsynced ones reach the file
   * and the survivors must be a prefix in put order.
   */
  @ParameterizedTest(name = "{0} puts after the sync")
  @ValueSource(ints = {100, 20_000})
  void when_a_process_halts_after_sync_then_every_synced_version_survives(int unsynced) throws Exception {
    Path dir = tmp.resolve("crash");
    int synced = 2_000;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = tmp.resolve("child.log");
    Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        JeCrashChild.class.getName(), dir.toString(), String.valueOf(synced), String.valueOf(unsynced))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    try {
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish in 60 s");
    } finally {
      child.destroyForcibly();
    }
    String output = Files.readString(log);
    assertEquals(JeCrashChild.EXIT_CODE, child.exitValue(), output);
    assertTrue(output.contains(JeCrashChild.SYNCED), output);

    try (JeStore<TestRecord> s = reopen(dir)) {
      for (int k = 1; k < 10; k++) {
        List<TestRecord> versions = s.versions("key" + k);
        assertEquals(synced / 10, versions.size(), "key" + k);
        assertEquals(synced - 10 + k, versions.get(0).getUt());
      }
      // key0: versions ut 0, 10, ..., 1990, pruned below 500 before the sync
      List<TestRecord> key0 = s.versions("key0");
      assertEquals(500, key0.get(key0.size() - 1).getUt());
      assertEquals((synced - 500) / 10, key0.size());
      // whatever survived of the unsynced puts is a prefix of them, in put order
      List<TestRecord> after = s.versions("after");
      for (int i = 0; i < after.size(); i++) {
        assertEquals(after.size() - 1 - i, after.get(i).getUt());
      }
      assertEquals(after.isEmpty() ? 10 : 11, s.keyCount());
    }
  }

  /**
   * Durability none: writes are in JE's log buffer only, and 500 small puts do not fill it, so before the
   * background writer a kill -9 lost all of them however long ago they were made (issue 11). Now every
   * write older than the background write interval survives a SIGKILL.
   */
  @Test
  void when_a_durability_none_process_is_killed_then_writes_older_than_the_flush_interval_survive() throws Exception {
    Path dir = tmp.resolve("none-crash");
    int count = 500;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = tmp.resolve("none-child.log");
    Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        JeNoneCrashChild.class.getName(), dir.toString(), String.valueOf(count))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.readString(log).contains(JeNoneCrashChild.WRITTEN)) {
        assertTrue(child.isAlive() && System.nanoTime() < deadline, "child did not write: " + Files.readString(log));
        Thread.sleep(20);
      }
      // many background write intervals (200 ms) pass; then SIGKILL, as kill -9
      Thread.sleep(15 * JeStore.BACKGROUND_WRITE_INTERVAL.toMillis());
    } finally {
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    assertEquals(137, child.exitValue(), "killed by SIGKILL");
    try (JeStore<TestRecord> s = reopen(dir)) {
      assertEquals(10, s.keyCount());
      for (int k = 0; k < 10; k++) {
        assertEquals(count / 10, s.versions("key" + k).size(), "key" + k);
        assertEquals(count - 10 + k, s.newest("key" + k).orElseThrow().getUt());
      }
    }
  }

  /**
   * Durability none: the background flusher works only after writes (an idle cluster's six servers used to wake
   * it 30 times a second for nothing): no write, no background write; a put or a pruning delete schedules one.
   */
  @Test
  void when_a_durability_none_store_is_not_written_then_its_background_flusher_does_nothing() throws Exception {
    JeStore<TestRecord> s = (JeStore<TestRecord>) store;
    long interval = JeStore.BACKGROUND_WRITE_INTERVAL.toMillis();
    Thread.sleep(3 * interval);
    assertEquals(0, s.backgroundWrites(), "no write yet");

    s.put("k", rec(1, 0));
    s.put("k", rec(2, 0));
    awaitBackgroundWrites(s, 1);
    Thread.sleep(3 * interval);
    long afterPuts = s.backgroundWrites();
    Thread.sleep(3 * interval);
    assertEquals(afterPuts, s.backgroundWrites(), "nothing written since");

    s.put("k", rec(1, 0)); // a replay of an existing version writes nothing
    Thread.sleep(3 * interval);
    assertEquals(afterPuts, s.backgroundWrites(), "a replayed put writes nothing");

    assertEquals(1, s.prune("k", r -> r.getUt() <= 2));
    awaitBackgroundWrites(s, afterPuts + 1);
  }

  private static void awaitBackgroundWrites(JeStore<TestRecord> s, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (s.backgroundWrites() < atLeast) {
      assertTrue(System.nanoTime() < deadline, "no background write within 30 s of a write");
      Thread.sleep(20);
    }
  }

  @Test
  void when_random_operations_run_then_je_answers_like_the_in_memory_store() {
    InMemoryStore<TestRecord> model = new InMemoryStore<>(TYPE);
    Random random = new Random(1234);
    List<String> keys = new ArrayList<>(List.of("", "a", "ab", "a\u0000", "b", "\u00ff", "\uffff", "z"));
    for (int op = 0; op < 5_000; op++) {
      String key = keys.get(random.nextInt(keys.size()));
      int choice = random.nextInt(10);
      if (choice < 7) {
        TestRecord r = rec(random.nextInt(200) - 100, random.nextInt(3));
        model.put(key, r);
        store.put(key, r);
      } else if (choice < 8) {
        long cut = random.nextInt(200) - 100;
        if (random.nextBoolean()) {
          assertEquals(model.prune(key, r -> r.getUt() <= cut), store.prune(key, r -> r.getUt() <= cut));
        } else {
          byte[] from = VersionKey.of(cut - random.nextInt(50), random.nextInt(3));
          byte[] below = VersionKey.of(cut, random.nextInt(3));
          assertEquals(model.pruneRange(key, from, below), store.pruneRange(key, from, below));
        }
      } else {
        long below = random.nextInt(200) - 100;
        assertEquals(model.newest(key, r -> r.getUt() < below), store.newest(key, r -> r.getUt() < below));
      }
    }
    for (String key : keys) {
      assertEquals(model.versions(key), store.versions(key), Stores.show(key));
    }
    assertEquals(model.keyCount(), store.keyCount());
  }

  @Test
  void when_successor_of_a_prefix_is_taken_then_trailing_ff_bytes_carry() {
    assertEquals("0000000262", hex(JeStore.successor(new byte[] {0, 0, 0, 2, 0x61})));
    assertEquals("00000002", hex(JeStore.successor(new byte[] {0, 0, 0, 1, (byte) 0xff})));
    assertEquals("000001", hex(JeStore.successor(new byte[] {0, 0, 0, (byte) 0xff, (byte) 0xff})));
    assertThrows(IllegalArgumentException.class, () -> JeStore.successor(new byte[] {(byte) 0xff}));
  }

  private static String hex(byte[] bytes) {
    return java.util.HexFormat.of().formatHex(bytes);
  }
}
