package org.kvlab.designer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ConfigException;
import org.kvlab.experiment.ExperimentLoader;

/** The benchmark tab's text handling, without a window: the loader's messages and the design's cluster. */
class ExperimentTextTest {
  @Test
  void when_theTextHasAMistake_then_theMessageIsTheClisWithItsLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("x.yaml");
    String text = "name: x\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [eventul]\nduration: 2s\n";
    Files.writeString(file, text);
    ExperimentCheck c = ExperimentCheck.of(text, file);
    assertFalse(c.ok());
    ConfigException cli = assertThrows(ConfigException.class,
        () -> ExperimentLoader.load(file, ExperimentCheck.installedProtocols()));
    assertEquals("kvlab: " + cli.getMessage(), c.message());
    assertTrue(c.message().contains("'eventul' is not an installed protocol. Fix: did you mean 'eventual'?"), c.message());
    assertEquals(3, c.line());

    ExperimentCheck good = ExperimentCheck.of(text.replace("eventul", "eventual"), file);
    assertTrue(good.ok(), good.message());
    assertEquals("run 1/1 eventual base", ExperimentCheck.runList(good.experiment()));
  }

  @Test
  void when_anOpenLoopTextIsChecked_then_itIsTheOpenLoopLoadersVerdictOnTheUnsavedText(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("clusters"));
    Files.writeString(dir.resolve("clusters/c.yaml"), "name: c\nprotocol: eventual\ndatacenters: 1\npartitions: 1\n"
        + "servers:\n  - { id: 0_0, host: 127.0.0.1, port: 7200 }\n");
    Path file = dir.resolve("ol.yaml");
    String saved = "mode: open-loop\nname: ol\nclusters: [clusters/c.yaml]\nrates: [100]\n";
    Files.writeString(file, saved);
    // the editor's text, not saved: a typo on line 4; the message is kvlab bench's for the same file
    String typo = "mode: open-loop\nname: ol\nclusters: [clusters/c.yaml]\nrate: [100, 200]\n";
    ExperimentCheck c = ExperimentCheck.of(typo, file);
    assertFalse(c.ok());
    Files.writeString(file, typo);
    ConfigException cli = assertThrows(ConfigException.class, () -> org.kvlab.openloop.OpenLoopExperiment.load(file));
    Files.writeString(file, saved);
    assertEquals("kvlab: " + cli.getMessage(), c.message());
    assertTrue(c.message().contains("did you mean 'rates'"), c.message());
    assertEquals(4, c.line());
    // fixed in the editor: valid, the cluster path relative to the experiment file, the rates as typed
    ExperimentCheck good = ExperimentCheck.of(typo.replace("rate:", "rates:"), file);
    assertTrue(good.ok(), good.message());
    assertEquals(null, good.experiment());
    assertEquals(java.util.List.of(100.0, 200.0), good.openLoop().rates());
    assertEquals(dir.resolve("clusters/c.yaml"), good.openLoop().clusters().get(0));
    assertTrue(ExperimentCheck.runList(good.openLoop()).contains("rates (requests/s): 100, 200"));
  }

  @Test
  void when_theDesignsClusterIsUsed_then_theClusterBlockPointsAtIt() {
    String yaml = "name: x\ncluster:\n  datacenters: 2\n  partitions: 3\n\nprotocols: [eventual]\nduration: 2s\n";
    assertEquals("name: x\ncluster: { file: examples/my.yaml }\nprotocols: [eventual]\nduration: 2s\n",
        BenchView.withClusterFile(yaml, "examples/my.yaml"));
    assertEquals("name: x\ncluster: { file: c.yaml }\nprotocols: [eventual]\n",
        BenchView.withClusterFile("name: x\nprotocols: [eventual]\n", "c.yaml"));
    assertEquals("name: x\ncluster: { file: c.yaml }\nprotocols: [a]\n",
        BenchView.withClusterFile("name: x\ncluster: { datacenters: 1, partitions: 1 }\nprotocols: [a]\n", "c.yaml"));
  }
}
