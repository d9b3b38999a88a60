package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.testing.TestClusters;

/**
 * Stock {@code site.ycsb.Client} in a child JVM (its main calls System.exit), exactly as {@code ./kvlab bench}
 * launches it, against an in-process GentleRain cluster: load, then run with kvlab's operations.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class YcsbClientEndToEndTest {
  private static final int RECORDS = 200;
  private static final int OPERATIONS = 400;
  private static final int AMPFACTOR = 4;

  @TempDir Path dir;

  @Test
  void when_stockYcsbLoadsAndRuns_then_theExporterCountsEveryRequestedOperationAsOk() throws Exception {
    Path workload = dir.resolve("workload.properties");
    Files.writeString(workload, String.join("\n",
        "recordcount=" + RECORDS, "operationcount=" + OPERATIONS, "threadcount=4", "fieldcount=2", "fieldlength=32",
        "requestdistribution=zipfian", "readproportion=0.45", "updateproportion=0.35", "rotxproportion=0.1",
        "rotxkeys=3", "ampinsertproportion=0.1", "ampfactor=" + AMPFACTOR, ""));
    try (YcsbClusters c = YcsbClusters.start("gentlerain", 1, 2, dir)) {
      Map<String, Long> load = ycsb("-load", workload, c.file, "load");
      assertEquals(RECORDS, load.get("INSERT Operations"), load.toString());
      assertEquals(RECORDS, load.get("INSERT Return=OK"), load.toString());
      assertNoErrors(load);
      assertTrue(Files.isRegularFile(dir.resolve("load/INSERT.hdr")));

      Map<String, Long> run = ycsb("-t", workload, c.file, "run");
      long amp = run.getOrDefault("AMP-INSERT Operations", 0L);
      long rotx = run.getOrDefault("ROTX Operations", 0L);
      assertEquals(OPERATIONS, run.get("READ Operations") + run.get("UPDATE Operations") + rotx + amp, run.toString());
      assertEquals(AMPFACTOR * amp, run.get("INSERT Operations"), run.toString());
      for (String op : List.of("READ", "UPDATE", "INSERT", "ROTX", "AMP-INSERT")) {
        assertTrue(run.get(op + " Operations") > 0, op + " ran: " + run);
        assertEquals(run.get(op + " Operations"), run.get(op + " Return=OK"), op + ": " + run);
        assertTrue(Files.size(dir.resolve("run/" + op + ".hdr")) > 0, op + ".hdr written");
      }
      assertNoErrors(run);
    }
  }

  /**
   * kvlab.runseconds (what kvlab bench sets on timed runs) ends an otherwise unbounded run phase, and no sooner than
   * that many seconds: it counts from the first operation, after the threads' start-up.
   */
  @Test
  void when_runSecondsIsSet_then_theRunPhaseEndsByItselfAfterThatLong() throws Exception {
    Path workload = dir.resolve("timed.properties");
    Files.writeString(workload, String.join("\n", "recordcount=" + RECORDS, "operationcount=2000000000",
        "threadcount=2", "fieldcount=1", "fieldlength=16", "readproportion=0.5", "updateproportion=0.5",
        "kvlab.runseconds=2", ""));
    try (YcsbClusters c = YcsbClusters.start("eventual", 1, 1, dir)) {
      assertNoErrors(ycsb("-load", workload, c.file, "timed-load"));
      long start = System.nanoTime();
      Map<String, Long> run = ycsb("-t", workload, c.file, "timed-run"); // no maxexecutiontime: only runseconds ends it
      double seconds = (System.nanoTime() - start) / 1e9;
      assertTrue(seconds >= 2, "the run phase ended after " + seconds + " s, before kvlab.runseconds=2");
      assertTrue(run.get("READ Operations") > 0 && run.get("UPDATE Operations") > 0, run.toString());
      assertNoErrors(run);
    }
  }

  @Test
  void when_theServersAreDown_then_ycsbStopsWithTheirAddressAndExportsNothing() throws Exception {
    Path file = YcsbClusters.write(TestClusters.loopback("eventual", 1, 1, TestClusters.memory()),
        dir.resolve("down.yaml"));
    Path workload = dir.resolve("w.properties");
    Files.writeString(workload, "recordcount=10\noperationcount=10\nthreadcount=2\n");
    Process p = start("-load", workload, file, "down");
    String out = Files.readString(dir.resolve("down.out")) + Files.readString(dir.resolve("down.err"));
    assertTrue(out.contains("cannot use server 0_0 at 127.0.0.1:"), out);
    assertFalse(Files.exists(dir.resolve("down.json")), "no measurements exported for a run that did not happen");
    assertEquals(0, p.exitValue(), "YCSB 0.17.0 exits 0 even then; the missing export file is the signal");
  }

  private Map<String, Long> ycsb(String phase, Path workload, Path cluster, String name) throws Exception {
    Process p = start(phase, workload, cluster, name);
    String log = Files.readString(dir.resolve(name + ".err"));
    assertEquals(0, p.exitValue(), log);
    Path export = dir.resolve(name + ".json");
    assertTrue(Files.isRegularFile(export), "exported measurements; YCSB said:\n" + log
        + Files.readString(dir.resolve(name + ".out")));
    Map<String, Long> counts = new HashMap<>();
    for (JsonNode m : new ObjectMapper().readTree(export.toFile())) {
      String measurement = m.get("measurement").asText();
      if (measurement.equals("Operations") || measurement.startsWith("Return=")) {
        counts.put(m.get("metric").asText() + " " + measurement, m.get("value").asLong());
      }
    }
    return counts;
  }

  private Process start(String phase, Path workload, Path cluster, String name) throws Exception {
    Files.createDirectories(dir.resolve(name));
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        "site.ycsb.Client", phase, "-db", "org.kvlab.ycsb.KvlabDB", "-P", workload.toString(),
        "-p", "workload=org.kvlab.ycsb.KvlabWorkload", "-p", "kvlab.cluster=" + cluster, "-p", "kvlab.dc=0",
        "-p", "measurementtype=hdrhistogram", "-p", "hdrhistogram.fileoutput=true",
        "-p", "hdrhistogram.output.path=" + dir.resolve(name) + "/",
        "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter",
        "-p", "exportfile=" + dir.resolve(name + ".json"), "-s"));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile())
        .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      fail("YCSB " + phase + " did not finish in 120 s:\n" + Files.readString(dir.resolve(name + ".err")));
    }
    return p;
  }

  private static void assertNoErrors(Map<String, Long> counts) {
    for (String k : counts.keySet()) {
      assertFalse(k.contains("FAILED") || (k.contains("Return=") && !k.endsWith("Return=OK")), "unexpected " + k
          + " in " + counts);
    }
  }
}
