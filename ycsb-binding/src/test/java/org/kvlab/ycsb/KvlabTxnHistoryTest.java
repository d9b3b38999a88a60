package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.check.Result;
import org.kvlab.check.txn.SerializabilityChecker;
import org.kvlab.history.History;
import org.kvlab.history.HistoryFiles;
import org.kvlab.history.Operation;
import site.ycsb.DB;
import site.ycsb.DBFactory;
import site.ycsb.measurements.Measurements;

/**
 * YCSB's list-append transactions ({@code kvlab.txnworkload}) on a loopback CaMu cluster, recorded with
 * {@code kvlab.history} and judged by the {@code serializable} checker, as {@code kvlab check} would read the file.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KvlabTxnHistoryTest {
  private static final int THREADS = 3;
  private static final int TXNS = 60;

  @Test
  void when_ycsbRunsListAppendOnCamu_then_theRecordedHistoryIsSerializableAndAnEditedReadIsCaught(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("ycsb-history.jsonl");
    try (YcsbClusters c = YcsbClusters.start("camu", 1, 2, dir)) {
      Properties p = c.props();
      p.setProperty("recordcount", "10");
      p.setProperty("operationcount", Integer.toString(THREADS * TXNS));
      p.setProperty("readproportion", "0");
      p.setProperty("updateproportion", "0");
      p.setProperty("txproportion", "1");
      p.setProperty(KvlabWorkload.TXN_WORKLOAD, "list-append");
      p.setProperty(KvlabWorkload.TXN_KEYS, "6");
      p.setProperty(KvlabWorkload.TXN_LENGTH, "1..3");
      p.setProperty(KvlabWorkload.TXN_READ_SHARE, "0.4");
      p.setProperty(KvlabWorkload.TXN_LOCALITY, "0.5");
      p.setProperty(KvlabClients.HISTORY, file.toString());
      Measurements.setProperties(p);
      Map<String, Long> before = KvlabWorkloadTest.measured();
      KvlabWorkload workload = new KvlabWorkload();
      workload.init(p);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int id = t;
          runs.add(pool.submit(() -> {
            DB db = DBFactory.newDB(KvlabDB.class.getName(), p,
                new Tracer.Builder("test").conf(HTraceConfiguration.EMPTY).build());
            db.init();
            Object state = workload.initThread(p, id, THREADS);
            for (int i = 0; i < TXNS; i++) {
              assertTrue(workload.doTransaction(db, state));
            }
            db.cleanup();
            return null;
          }));
        }
        for (Future<?> f : runs) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      workload.cleanup(); // the last reference: writes the history
      Map<String, Long> d = KvlabWorkloadTest.delta(before, KvlabWorkloadTest.measured());
      assertEquals(THREADS * TXNS, d.getOrDefault("TX Return=OK", 0L), d.toString());
    }

    History history = HistoryFiles.read(file);
    List<Operation> txns = history.operations().stream().filter(o -> o.type() == Operation.Type.TXN).toList();
    assertEquals(THREADS * TXNS, txns.size(), "every transaction is recorded");
    assertTrue(txns.stream().allMatch(Operation::ok), "all committed");
    long appends = txns.stream().filter(o -> "append".equals(o.txn().request().procedure())).count();
    long listReads = txns.stream().flatMap(o -> o.reads().values().stream())
        .filter(v -> v.isPresent() && v.get().toStringUtf8().contains(" ")).count();
    assertTrue(appends > TXNS && listReads > 0, appends + " appends, " + listReads + " reads of lists of 2+ elements");
    Result ok = SerializabilityChecker.serializable().check(history);
    assertTrue(ok.valid() && !ok.vacuous(), ok.toString());

    // teeth: the longest list read loses its first element; another read of that key still starts with it
    List<String> lines = Files.readAllLines(file);
    ObjectMapper json = new ObjectMapper();
    int longest = -1;
    String key = null;
    int most = 1;
    for (int i = 0; i < lines.size(); i++) {
      ObjectNode o = (ObjectNode) json.readTree(lines.get(i));
      if (o.path("type").asText().equals("TXN") && o.has("reads")) {
        for (var it = o.get("reads").fields(); it.hasNext(); ) {
          var e = it.next();
          int n = e.getValue().isTextual() ? e.getValue().asText().split(" ").length : 0;
          if (n > most) {
            most = n;
            longest = i;
            key = e.getKey();
          }
        }
      }
    }
    assertTrue(longest >= 0, "some read returned a list of 2+ elements");
    ObjectNode edited = (ObjectNode) json.readTree(lines.get(longest));
    String[] list = edited.get("reads").get(key).asText().split(" ");
    ((ObjectNode) edited.get("reads")).put(key, String.join(" ", Arrays.copyOfRange(list, 1, list.length)));
    lines.set(longest, json.writeValueAsString(edited));
    Path bad = dir.resolve("edited.jsonl");
    Files.write(bad, lines);
    Result caught = SerializabilityChecker.serializable().check(HistoryFiles.read(bad));
    assertFalse(caught.valid(), "a read of " + key + " without its first element " + list[0] + " must fail: "
        + caught);
  }

  @Test
  void when_theTxnWorkloadOrHistoryIsWrong_then_initNamesTheFix(@TempDir Path dir) throws Exception {
    try (YcsbClusters c = YcsbClusters.start("camu", 1, 2, dir)) {
      for (String[] bad : new String[][] {
          {KvlabWorkload.TXN_WORKLOAD, "list-apend", "unknown transaction workload 'list-apend'"},
          {KvlabWorkload.TXN_LENGTH, "3", "kvlab.txnlength=3 is not MIN..MAX"},
          {"txproportion", "0", "txproportion is 0"},
          {KvlabClients.HISTORY, dir.toString(), "is not a file to write"}}) {
        Properties p = c.props();
        p.setProperty("recordcount", "10");
        p.setProperty("txproportion", "1");
        p.setProperty(KvlabWorkload.TXN_WORKLOAD, "list-append");
        p.setProperty(bad[0], bad[1]);
        Measurements.setProperties(p);
        site.ycsb.WorkloadException e = org.junit.jupiter.api.Assertions.assertThrows(
            site.ycsb.WorkloadException.class, () -> new KvlabWorkload().init(p));
        assertTrue(e.getMessage().contains(bad[2]) && e.getMessage().contains("Fix"), e.getMessage());
      }
    }
  }
}
