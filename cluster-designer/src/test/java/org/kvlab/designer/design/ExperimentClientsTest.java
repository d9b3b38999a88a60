package org.kvlab.designer.design;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client groups of experiment files: read through kvlab's loader, edited in the clients: section only. */
class ExperimentClientsTest {
  @TempDir
  Path tmp;

  private static final String HEAD = "# a comment\nname: t\ncluster:\n  datacenters: 3\n  partitions: 1\n"
      + "protocols: [eventual]\nworkload:\n  readproportion: 0.5\n";
  private static final String TAIL = "recordcount: 100\nduration: 2s\n";

  private ExperimentClients of(String text) {
    return ExperimentClients.of(text, tmp.resolve("e.yaml"));
  }

  @Test
  void groupsAreTheListedDatacentersOrEveryOne() {
    ExperimentClients all = of(HEAD + "clients:\n  processes: 2\n  threads: 8\n" + TAIL);
    assertTrue(all.ok(), all.error);
    assertEquals(List.of(0, 1, 2), all.groups());
    assertTrue(all.everyDatacenter());
    assertEquals("client group\n2 JVMs \u00d7 8 threads", all.groupLabel());
    ExperimentClients one = of(HEAD + "clients: { threads: 4, datacenters: [1] }\n" + TAIL);
    assertEquals(List.of(1), one.groups());
    assertEquals("client group\n1 JVM \u00d7 4 threads", one.groupLabel());
    ExperimentClients none = of(HEAD + TAIL);
    assertEquals(List.of(0, 1, 2), none.groups(), "no clients: section: 1 x 1 in every datacenter");
  }

  @Test
  void anEditChangesOnlyTheClientsLinesAndKeepsTheirComments() {
    String text = HEAD + "clients:\n  processes: 1     # JVMs\n  threads: 4        # per JVM\n  jvm: -Xmx256m\n" + TAIL;
    ExperimentClients c = of(text);
    String two = c.withGroups(Set.of(0, 2));
    assertEquals(HEAD + "clients:\n  processes: 1     # JVMs\n  threads: 4        # per JVM\n  jvm: -Xmx256m\n"
        + "  datacenters: [0, 2]\n" + TAIL, two);
    ExperimentClients c2 = of(two);
    assertTrue(c2.ok(), c2.error);
    assertEquals(List.of(0, 2), c2.groups());
    // back to every datacenter: the key goes
    assertEquals(text, c2.withGroups(Set.of(0, 1, 2)));
    String sized = c.withSize(3, 16);
    assertEquals(HEAD + "clients:\n  processes: 3     # JVMs\n  threads: 16       # per JVM\n  jvm: -Xmx256m\n" + TAIL, sized);
    assertEquals(3, of(sized).processes());
  }

  @Test
  void flowStyleAndAbsentSectionsAreWrittenOneKeyPerLine() {
    String flow = HEAD + "clients: { threads: 4, jvm: '-Xmx1g -XX:+UseSerialGC' }  # c\n" + TAIL;
    String out = of(flow).withGroups(Set.of(1));
    assertEquals(HEAD + "clients:\n  threads: 4\n  jvm: '-Xmx1g -XX:+UseSerialGC'\n  datacenters: [1]\n" + TAIL, out);
    assertTrue(of(out).ok(), of(out).error);
    assertEquals("-Xmx1g -XX:+UseSerialGC", of(out).experiment.clients().jvmOptions());
    String absent = of(HEAD + TAIL).withGroups(Set.of(2));
    assertEquals(HEAD + "clients:\n  datacenters: [2]\n" + TAIL, absent);
    assertEquals(List.of(2), of(absent).groups());
  }

  @Test
  void whatTheLoaderRefusesIsReportedWithItsMessage() {
    ExperimentClients c = of(HEAD + "clients:\n  processes: 1\n" + TAIL);
    ExperimentClients bad = of(c.withSize(100, 1));
    assertFalse(bad.ok());
    assertTrue(bad.error.startsWith("kvlab: " + tmp.resolve("e.yaml") + ":"), bad.error);
    assertTrue(bad.error.contains("Fix:"), bad.error);
    ExperimentClients outside = of(c.withGroups(Set.of(0, 5)));
    assertFalse(outside.ok());
    assertTrue(outside.error.contains("datacenter 5 is not in the cluster, which has 3"), outside.error);
  }

  @Test
  void theTemplateForASavedDesignLoads() throws Exception {
    Path cluster = tmp.resolve("c.yaml");
    Files.copy(Path.of("..", "examples", "eventual-2dc-3p.yaml"), cluster);
    Design d = DesignYaml.read(Files.readString(cluster), "c.yaml");
    ExperimentClients t = ExperimentClients.of(ExperimentClients.template(d, "c.yaml"), tmp.resolve("bench.yaml"));
    assertTrue(t.ok(), t.error);
    assertEquals(2, t.clusterDatacenters());
    assertEquals(List.of(0, 1), t.groups());
    assertEquals(List.of("eventual"), t.experiment.protocols());
  }
}
