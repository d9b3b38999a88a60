package org.kvlab.dkvf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;

/** kvlab import-dkvf: DKVF descriptors to YAML that kvlab's own loaders accept; clear errors for bad XML. */
class DkvfImportTest {
  static Path resource(String name, Path dir) throws Exception {
    Path target = dir.resolve(name);
    try (var in = DkvfImportTest.class.getResourceAsStream("/dkvf/" + name)) {
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  @Test
  void when_gentleRainClusterDescriptorIsImported_then_clusterLoaderAcceptsItWithSameShapeAndPorts(@TempDir Path dir)
      throws Exception {
    DkvfImport.Result r = DkvfImport.convert(resource("gentlerain-2x3-cluster.xml", dir), dir.resolve("out"));
    assertEquals("cluster", r.kind());
    ClusterConfig c = ClusterConfig.load(r.output());
    assertEquals("gentlerain", c.protocol());
    assertEquals(2, c.topology().datacenters());
    assertEquals(3, c.topology().partitions());
    assertEquals("10ms", c.params().string("heartbeat", ""));
    assertEquals("5ms", c.params().string("gstInterval", ""));
    assertTrue(r.yaml().contains("{ id: 1_2, host: \"127.0.0.1\", port: 7725 }"), r.yaml());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("SSH credentials")), r.notes().toString());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("<topology>")), r.notes().toString());
    assertTrue(r.yaml().startsWith("# Imported from DKVF cluster descriptor"));
    assertFalse(r.yaml().contains("dkvf.pem"), "credentials are never copied");
  }

  @Test
  void when_accfDescriptorHasGroupIds_then_theyBecomeExplicitTrackingAndCheckingGroups(@TempDir Path dir) throws Exception {
    DkvfImport.Result r = DkvfImport.convert(resource("accf-2x2-cluster.xml", dir), dir);
    ClusterConfig c = ClusterConfig.load(r.output());
    assertEquals("accf", c.protocol());
    assertEquals("0.0=t0 0.1=t1 1.0=t2 1.1=t3", c.params().string("tracking", ""));
    assertEquals("0.0=c0 0.1=c1 1.0=c2 1.1=c3", c.params().string("checking", ""));
    assertEquals("5ms", c.params().string("svvInterval", ""));
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("message_delay")), r.notes().toString());
  }

  @Test
  void when_experimentDescriptorIsImported_then_experimentLoaderAcceptsItWithTheSweepAndWorkload(@TempDir Path dir)
      throws Exception {
    resource("properties.txt", dir);
    DkvfImport.Result r = DkvfImport.convert(resource("gentlerain-2x3-experiment.xml", dir), dir);
    assertEquals("experiment", r.kind());
    Experiment e = ExperimentLoader.load(r.output(), List.of("eventual", "gentlerain", "causalspartanx", "accf"));
    assertEquals(List.of("gentlerain"), e.protocols());
    assertEquals(3, e.variations().size());
    assertTrue(r.yaml().contains("threads: 30"), r.yaml());
    assertTrue(r.yaml().contains("datacenters: [0]"), r.yaml());
    assertTrue(r.yaml().contains("recordcount: 10000"), r.yaml());
    assertTrue(r.yaml().contains("fieldlength: 64"), r.yaml());
  }

  @Test
  void when_xmlIsMalformed_then_errorNamesFileLineCauseAndFix(@TempDir Path dir) throws Exception {
    Path f = resource("malformed.xml", dir);
    DkvfImportException e = assertThrows(DkvfImportException.class, () -> DkvfImport.convert(f, dir));
    assertTrue(e.getMessage().startsWith(f + ":6: "), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: correct the XML"), e.getMessage());
  }

  @Test
  void when_xmlDeclaresExternalEntity_then_itIsRefusedAndNothingIsRead(@TempDir Path dir) throws Exception {
    Path f = resource("xxe.xml", dir);
    DkvfImportException e = assertThrows(DkvfImportException.class, () -> DkvfImport.convert(f, dir));
    assertTrue(e.getMessage().contains(":2:") && e.getMessage().contains("remove the <!DOCTYPE"), e.getMessage());
    assertFalse(e.getMessage().contains("root:"), e.getMessage());
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no output written");
    }
  }

  @Test
  void when_elementIsUnsupported_then_errorNamesItsLineAndTheKnownOnes(@TempDir Path dir) throws Exception {
    Path f = resource("unsupported.xml", dir);
    DkvfImportException e = assertThrows(DkvfImportException.class, () -> DkvfImport.convert(f, dir));
    assertTrue(e.getMessage().startsWith(f + ":6: unsupported element <replication_factor> in <defaults>"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: remove it or correct its name"), e.getMessage());
  }

  @Test
  void when_perNodeConfigIsGiven_then_errorPointsToTheClusterDescriptor(@TempDir Path dir) throws Exception {
    Path f = resource("node-config.xml", dir);
    DkvfImportException e = assertThrows(DkvfImportException.class, () -> DkvfImport.convert(f, dir));
    assertTrue(e.getMessage().contains(":1: this is a per-node DKVF config"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: import the cluster descriptor"), e.getMessage());
  }
}
