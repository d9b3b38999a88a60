package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBFactory;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.MeasurementsExporter;

/**
 * KvlabWorkload run the way YCSB's ClientThread runs it (DBWrapper around KvlabDB, init, initThread,
 * doInsert / doTransaction on one thread), in process, against GentleRain.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KvlabWorkloadTest {

  @Test
  void when_theWorkloadMixesCoreAndKvlabOperations_then_eachIsExecutedAndMeasured(@TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start("gentlerain", 1, 2, dir)) {
      Properties p = c.props();
      p.setProperty("recordcount", "60");
      p.setProperty("operationcount", "200");
      p.setProperty("fieldcount", "2");
      p.setProperty("fieldlength", "16");
      p.setProperty("insertorder", "ordered");
      p.setProperty("readproportion", "0.3");
      p.setProperty("updateproportion", "0.2");
      p.setProperty("rotxproportion", "0.3");
      p.setProperty("rotxkeys", "4");
      p.setProperty("ampinsertproportion", "0.2");
      p.setProperty("ampfactor", "3");
      Measurements.setProperties(p);
      Map<String, Long> before = measured();

      KvlabWorkload workload = new KvlabWorkload();
      workload.init(p);
      DB db = DBFactory.newDB(KvlabDB.class.getName(), p,
          new Tracer.Builder("test").conf(HTraceConfiguration.EMPTY).build());
      db.init();
      Object state = workload.initThread(p, 0, 1);
      for (int i = 0; i < 60; i++) {
        assertTrue(workload.doInsert(db, state));
      }
      for (int i = 0; i < 200; i++) {
        assertTrue(workload.doTransaction(db, state));
      }

      Map<String, Long> d = delta(before, measured());
      long amp = d.getOrDefault("AMP-INSERT Operations", 0L);
      long rotx = d.getOrDefault("ROTX Operations", 0L);
      assertTrue(amp > 0 && rotx > 0, "both kvlab operations ran: " + d);
      assertEquals(200, d.getOrDefault("READ Operations", 0L) + d.getOrDefault("UPDATE Operations", 0L) + rotx + amp,
          "every transaction is one of the four weighted operations: " + d);
      assertEquals(60 + 3 * amp, d.get("INSERT Operations"), "each amplified insert is ampfactor inserts: " + d);
      for (String op : new String[] {"READ", "UPDATE", "INSERT", "ROTX", "AMP-INSERT"}) {
        assertEquals(d.getOrDefault(op + " Operations", 0L), d.getOrDefault(op + " Return=OK", 0L), op + ": " + d);
      }
      assertTrue(d.keySet().stream().noneMatch(k -> k.contains("FAILED") || k.contains("Return=ERROR")), d.toString());

      // the amplified inserts stored fresh keys that the core inserts did not
      KvlabDB kvlab = KvlabDB.current();
      for (long k = 0; k < 60 + 3 * amp; k++) {
        Map<String, ByteIterator> record = new HashMap<>();
        assertEquals(Status.OK, kvlab.read("usertable", "user" + k, null, record), "user" + k);
        assertEquals(2, record.size());
      }
      db.cleanup();
      workload.cleanup();
    }
  }

  @Test
  void when_theWorkloadRunsTransactionsOnCamu_then_eachSpansTxpartitionsPartitionsAndCommits(@TempDir Path dir)
      throws Exception {
    try (YcsbClusters c = YcsbClusters.start("camu", 1, 4, dir)) {
      Properties p = c.props();
      p.setProperty("recordcount", "80");
      p.setProperty("operationcount", "60");
      p.setProperty("fieldcount", "1");
      p.setProperty("fieldlength", "16");
      p.setProperty("insertorder", "ordered");
      p.setProperty("readproportion", "0");
      p.setProperty("updateproportion", "0");
      p.setProperty("txproportion", "1");
      p.setProperty("txkeys", "4");
      p.setProperty("txpartitions", "2");
      p.setProperty("txpartner", "zipf");
      Measurements.setProperties(p);
      Map<String, Long> before = measured();
      KvlabWorkload workload = new KvlabWorkload();
      workload.init(p);
      DB db = DBFactory.newDB(KvlabDB.class.getName(), p,
          new Tracer.Builder("test").conf(HTraceConfiguration.EMPTY).build());
      db.init();
      Object state = workload.initThread(p, 0, 1);
      for (int i = 0; i < 80; i++) {
        assertTrue(workload.doInsert(db, state));
      }
      org.kvlab.api.Topology t = new org.kvlab.api.Topology(1, 4);
      for (int i = 0; i < 50; i++) {
        java.util.List<String> keys = workload.txnKeys();
        assertEquals(4, keys.size());
        assertEquals(2, keys.stream().map(t::partitionOf).distinct().count(), "txpartitions=2: " + keys);
      }
      for (int i = 0; i < 60; i++) {
        assertTrue(workload.doTransaction(db, state));
      }
      Map<String, Long> d = delta(before, measured());
      assertEquals(60, d.getOrDefault("TX Operations", 0L), d.toString());
      assertEquals(60, d.getOrDefault("TX Return=OK", 0L), d.toString());
      db.cleanup();
      workload.cleanup();
    }
  }

  @Test
  void when_txpartitionsExceedsTheCluster_then_initNamesTheFix(@TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start("camu", 1, 2, dir)) {
      Properties p = c.props();
      p.setProperty("recordcount", "10");
      p.setProperty("txproportion", "1");
      p.setProperty("txpartitions", "3");
      Measurements.setProperties(p);
      site.ycsb.WorkloadException e = assertThrows(site.ycsb.WorkloadException.class,
          () -> new KvlabWorkload().init(p));
      assertTrue(e.getMessage().contains("txpartitions=3") && e.getMessage().contains("Fix"), e.getMessage());
    }
  }

  @Test
  void when_aClientThreadCouldNotStart_then_theWorkloadFailsTheRunAtCleanup(@TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start("eventual", 1, 1, dir)) {
      Properties p = c.props();
      p.setProperty("recordcount", "10");
      Measurements.setProperties(p);
      KvlabWorkload workload = new KvlabWorkload();
      workload.init(p);
      Properties wrongDc = c.props();
      wrongDc.setProperty(KvlabClients.DC, "1");
      KvlabDB db = new KvlabDB();
      db.setProperties(wrongDc);
      assertThrows(site.ycsb.DBException.class, db::init); // what one of YCSB's threads would hit
      site.ycsb.WorkloadException e = assertThrows(site.ycsb.WorkloadException.class, workload::cleanup);
      assertTrue(e.getMessage().contains("1 YCSB client thread(s) could not start") && e.getMessage().contains("kvlab.dc=1"),
          e.getMessage());
    }
  }

  /** "OP measurement" -> value, for counts (Operations, Return=...), from YCSB's measurements so far. */
  static Map<String, Long> measured() throws Exception {
    Map<String, Long> m = new HashMap<>();
    Measurements.getMeasurements().exportMeasurements(new MeasurementsExporter() {
      @Override
      public void write(String metric, String measurement, int i) {
        write(metric, measurement, (long) i);
      }

      @Override
      public void write(String metric, String measurement, long l) {
        if (measurement.equals("Operations") || measurement.startsWith("Return=")) {
          m.put(metric + " " + measurement, l);
        }
      }

      @Override
      public void write(String metric, String measurement, double v) {}

      @Override
      public void close() {}
    });
    return m;
  }

  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> d = new HashMap<>();
    after.forEach((k, v) -> {
      long diff = v - before.getOrDefault(k, 0L);
      if (diff != 0) {
        d.put(k, diff);
      }
    });
    return d;
  }
}
