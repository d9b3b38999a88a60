package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.Status;

/** KvlabDB against an in-process loopback cluster (1 datacenter x 2 partitions) of each protocol. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KvlabDBTest {
  private static final String TABLE = "usertable";

  @ParameterizedTest
  @ValueSource(strings = {"eventual", "gentlerain", "causalspartanx"})
  void when_recordsAreInsertedUpdatedAndRead_then_theyReadBackByteForByte(String protocol, @TempDir Path dir)
      throws Exception {
    try (YcsbClusters c = YcsbClusters.start(protocol, 1, 2, dir)) {
      Properties props = c.props();
      props.setProperty("fieldcount", "3");
      KvlabDB db = open(props);
      try {
        Random random = new Random(42);
        Map<String, Map<String, byte[]>> written = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
          Map<String, byte[]> record = new LinkedHashMap<>();
          record.put("field0", bytes(random, 64));
          record.put("field1", bytes(random, i == 0 ? 0 : 300)); // empty, and longer than a one-byte varint
          record.put("f\u00e9ld2", bytes(random, 7));
          written.put("user" + i, record);
          assertEquals(Status.OK, db.insert(TABLE, "user" + i, iterators(record)));
        }
        for (Map.Entry<String, Map<String, byte[]>> e : written.entrySet()) {
          assertRecord(e.getValue(), db, e.getKey(), null);
        }
        assertRecord(Map.of("field1", written.get("user5").get("field1")), db, "user5", Set.of("field1", "absent"));

        // fieldcount=3 and one field given: read-merge-write keeps the other two fields
        byte[] fresh = bytes(random, 64);
        assertEquals(Status.OK, db.update(TABLE, "user7", iterators(Map.of("field0", fresh))));
        written.get("user7").put("field0", fresh);
        assertRecord(written.get("user7"), db, "user7", null);

        assertEquals(Status.NOT_FOUND, db.read(TABLE, "never-written", null, new HashMap<>()));
        assertEquals(Status.NOT_IMPLEMENTED, db.scan(TABLE, "user1", 10, null, new Vector<>()));
        assertEquals(Status.NOT_IMPLEMENTED, db.delete(TABLE, "user1"));

        Map<String, Map<String, ByteIterator>> tx = new HashMap<>();
        Status rotx = db.readOnlyTx(TABLE, List.of("user1", "user2", "user3", "never-written"), null, tx);
        if (protocol.equals("eventual")) {
          assertEquals(Status.NOT_IMPLEMENTED, rotx);
        } else {
          assertEquals(Status.OK, rotx);
          assertEquals(Set.of("user1", "user2", "user3"), tx.keySet());
          for (String k : tx.keySet()) {
            assertFields(written.get(k), tx.get(k));
          }
        }
      } finally {
        db.cleanup();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"overwrite", "auto"})
  void when_fieldcountIsOneOrModeIsOverwrite_then_updateReplacesTheRecord(String mode, @TempDir Path dir)
      throws Exception {
    try (YcsbClusters c = YcsbClusters.start("eventual", 1, 1, dir)) {
      Properties props = c.props();
      props.setProperty("fieldcount", "1");
      props.setProperty(KvlabDB.UPDATE, mode);
      KvlabDB db = open(props);
      try {
        Random random = new Random(7);
        assertEquals(Status.OK, db.insert(TABLE, "k", iterators(Map.of("field0", bytes(random, 64)))));
        byte[] v = bytes(random, 64);
        assertEquals(Status.OK, db.update(TABLE, "k", iterators(Map.of("field0", v))));
        assertRecord(Map.of("field0", v), db, "k", null);
        assertEquals(Status.OK, db.update(TABLE, "absent-before", iterators(Map.of("field0", v))));
        assertRecord(Map.of("field0", v), db, "absent-before", null);
      } finally {
        db.cleanup();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"eventual"})
  void when_manyThreadsShareTheRuntime_then_eachHasItsSessionAndTheLastCleanupClosesIt(String protocol,
      @TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start(protocol, 1, 2, dir)) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int thread = t;
          done.add(pool.submit(() -> {
            KvlabDB db = open(c.props());
            try {
              assertTrue(KvlabDB.current() == db, "current() is the thread's own KvlabDB");
              for (int i = 0; i < 50; i++) {
                String key = "t" + thread + "-" + i;
                byte[] v = ("value of " + key).getBytes();
                assertEquals(Status.OK, db.insert(TABLE, key, iterators(Map.of("field0", v))));
                assertRecord(Map.of("field0", v), db, key, null);
              }
            } finally {
              db.cleanup();
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      // every reference was released: a new client gets a fresh runtime and works
      KvlabDB db = open(c.props());
      try {
        assertRecord(Map.of("field0", "value of t3-7".getBytes()), db, "t3-7", null);
      } finally {
        db.cleanup();
      }
    }
  }

  /**
   * kvlab.remoteproportion=1: every read and update goes to the other datacenter (the session moves there and back),
   * pays the cluster file's emulated one-way delay each way (emulation.rtt, which the runtime applies to server links
   * only), and is measured apart as READ-REMOTE / UPDATE-REMOTE; inserts stay home. Bad values are refused at init.
   */
  @org.junit.jupiter.api.Test
  void when_operationsAreRemote_then_theyRunAtTheOtherDatacenterPayTheEmulatedWanAndAreMeasuredApart(
      @TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start("eventual", 2, 1, dir)) {
      Path wan = dir.resolve("wan.yaml");
      java.nio.file.Files.writeString(wan, java.nio.file.Files.readString(c.file)
          + "emulation:\n  rtt:\n    - [0, 40ms]\n    - [40ms, 0]\n");
      Properties props = c.props();
      props.setProperty(KvlabClients.CLUSTER, wan.toString());
      props.setProperty("fieldcount", "1");
      props.setProperty(KvlabDB.REMOTE_PROPORTION, "1");
      site.ycsb.measurements.Measurements.setProperties(props);
      KvlabDB db = open(props);
      try {
        byte[] first = "first".getBytes();
        byte[] second = "second".getBytes();
        assertEquals(Status.OK, db.insert(TABLE, "k", iterators(Map.of("field0", first))));
        long t1 = System.nanoTime();
        assertEquals(Status.OK, db.update(TABLE, "k", iterators(Map.of("field0", second))));
        long t2 = System.nanoTime();
        assertTrue(t2 - t1 >= TimeUnit.MILLISECONDS.toNanos(40), "a remote update crosses the emulated WAN both ways (20 ms"
            + " each): " + (t2 - t1) / 1000 + " us");
        // written at datacenter 1: a session there reads it
        try (org.kvlab.runtime.ClientRuntime runtime = new org.kvlab.runtime.ClientRuntime(
            org.kvlab.config.ClusterConfig.load(wan), org.kvlab.api.Protocols.byName("eventual"));
             org.kvlab.api.Session at1 = runtime.openSession(1)) {
          assertArrayEquals(FieldCodec.encode(iterators(Map.of("field0", second))).toByteArray(),
              at1.get("k").orElseThrow().toByteArray());
        }
        assertRecord(Map.of("field0", second), db, "k", null);
        String summary = site.ycsb.measurements.Measurements.getMeasurements().getSummary();
        assertTrue(summary.contains("READ-REMOTE") && summary.contains("UPDATE-REMOTE"), summary);
      } finally {
        db.cleanup();
      }

      Properties bad = c.props();
      bad.setProperty(KvlabDB.REMOTE_PROPORTION, "1.5");
      String message = org.junit.jupiter.api.Assertions.assertThrows(site.ycsb.DBException.class, () -> open(bad))
          .getMessage();
      assertTrue(message.contains("kvlab.remoteproportion=1.5 is not a proportion. Fix: write a number from 0 to 1"),
          message);
    }
    try (YcsbClusters one = YcsbClusters.start("eventual", 1, 1, java.nio.file.Files.createDirectories(dir.resolve("one")))) {
      Properties props = one.props();
      props.setProperty(KvlabDB.REMOTE_PROPORTION, "0.1");
      String message = org.junit.jupiter.api.Assertions.assertThrows(site.ycsb.DBException.class, () -> open(props))
          .getMessage();
      assertTrue(message.contains("kvlab.remoteproportion=0.1 needs another datacenter") && message.contains("Fix:"),
          message);
    }
  }

  static KvlabDB open(Properties props) throws Exception {
    KvlabDB db = new KvlabDB();
    db.setProperties(props);
    db.init();
    return db;
  }

  static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static Map<String, ByteIterator> iterators(Map<String, byte[]> record) {
    Map<String, ByteIterator> m = new HashMap<>();
    record.forEach((k, v) -> m.put(k, new ByteArrayByteIterator(v)));
    return m;
  }

  static void assertRecord(Map<String, byte[]> expected, KvlabDB db, String key, Set<String> fields) {
    Map<String, ByteIterator> got = new HashMap<>();
    assertEquals(Status.OK, db.read(TABLE, key, fields, got), "read " + key);
    assertFields(expected, got);
  }

  static void assertFields(Map<String, byte[]> expected, Map<String, ByteIterator> got) {
    assertEquals(expected.keySet(), got.keySet());
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), got.get(e.getKey()).toArray(), "field " + e.getKey());
    }
  }
}
