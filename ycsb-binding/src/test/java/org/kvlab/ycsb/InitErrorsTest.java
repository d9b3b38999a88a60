package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.testing.TestClusters;
import site.ycsb.DBException;
import site.ycsb.WorkloadException;

/** Every way the binding can fail to start says what is wrong and how to fix it, quickly. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InitErrorsTest {
  @TempDir Path dir;

  private Properties unreachable(String protocol) throws Exception {
    ClusterConfig config = TestClusters.loopback(protocol, 2, 2, TestClusters.memory()); // nothing listens there
    Properties p = new Properties();
    p.setProperty(KvlabClients.CLUSTER, YcsbClusters.write(config, dir.resolve("c.yaml")).toString());
    p.setProperty("recordcount", "100");
    site.ycsb.measurements.Measurements.setProperties(p); // as YCSB's Client does before the workload's init
    return p;
  }

  private static String initError(Properties p) {
    KvlabDB db = new KvlabDB();
    db.setProperties(p);
    DBException e = assertThrows(DBException.class, db::init);
    assertNull(KvlabDB.current(), "a failed init leaves no KvlabDB for the workload");
    return e.getMessage();
  }

  private static void assertMentions(String message, String... parts) {
    for (String part : parts) {
      assertTrue(message.contains(part), "expected '" + part + "' in: " + message);
    }
  }

  @Test
  void when_theClusterPropertyIsMissing_then_initSaysWhichPropertyToSet() {
    assertMentions(initError(new Properties()), "kvlab.cluster is not set", "Fix: pass -p kvlab.cluster=");
  }

  @Test
  void when_theClusterFileDoesNotExist_then_initNamesIt() {
    Properties p = new Properties();
    p.setProperty(KvlabClients.CLUSTER, dir.resolve("nope.yaml").toString());
    assertMentions(initError(p), "nope.yaml", "does not exist", "Fix:");
  }

  @Test
  void when_theClusterFileIsInvalid_then_initGivesFileLineAndFix() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "name: x\nprotocol: eventual\ndatacenters: 1\npartiton: 1\n");
    Properties p = new Properties();
    p.setProperty(KvlabClients.CLUSTER, bad.toString());
    assertMentions(initError(p), "invalid cluster file", "bad.yaml:4", "partiton", "Fix:");
  }

  @Test
  void when_theProtocolIsUnknown_then_initListsTheInstalledOnes() throws Exception {
    Properties p = unreachable("eventual");
    p.setProperty(KvlabClients.PROTOCOL, "nosuch");
    assertMentions(initError(p), "kvlab.protocol", "nosuch", "eventual", "gentlerain", "causalspartanx");
  }

  @Test
  void when_theDatacenterIsOutOfRange_then_initGivesTheRange() throws Exception {
    Properties p = unreachable("eventual");
    p.setProperty(KvlabClients.DC, "2");
    assertMentions(initError(p), "kvlab.dc=2", "has 2", "from 0 to 1");
  }

  @Test
  void when_theServersAreNotRunning_then_initFailsWithTheirAddress() throws Exception {
    Properties p = unreachable("eventual");
    p.setProperty(KvlabClients.DC, "1");
    ClusterConfig config = ClusterConfig.load(Path.of(p.getProperty(KvlabClients.CLUSTER)));
    int port = config.server(new org.kvlab.api.NodeId(1, 0)).port();
    assertMentions(initError(p), "server 1_0 at 127.0.0.1:" + port, "Fix: start the cluster");
  }

  @Test
  void when_readOnlyTransactionsAreAskedOfEventual_then_theWorkloadRefusesNamingTheProtocol() throws Exception {
    Properties p = unreachable("eventual");
    p.setProperty("rotxproportion", "0.1");
    WorkloadException e = assertThrows(WorkloadException.class, () -> new KvlabWorkload().init(p));
    assertMentions(e.getMessage(), "rotxproportion=0.1", "protocol 'eventual' does not offer", "gentlerain",
        "causalspartanx");
  }

  @Test
  void when_transactionsAreAsked_then_theWorkloadRefuses() throws Exception {
    Properties p = unreachable("gentlerain");
    p.setProperty("txproportion", "0.2");
    WorkloadException e = assertThrows(WorkloadException.class, () -> new KvlabWorkload().init(p));
    assertMentions(e.getMessage(), "txproportion=0.2", "multi-key transactions", "'gentlerain'",
        "Fix: set txproportion=0");
  }

  @Test
  void when_theWorkloadCannotReachTheServers_then_itFailsBeforeAnyThreadStarts() throws Exception {
    Properties p = unreachable("gentlerain");
    p.setProperty("rotxproportion", "0.1");
    WorkloadException e = assertThrows(WorkloadException.class, () -> new KvlabWorkload().init(p));
    assertMentions(e.getMessage(), "cannot use server 0_", "127.0.0.1:");
  }
}
