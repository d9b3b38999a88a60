package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal (issue 28): when a YCSB client dies on its workload's properties, the run's failure says why (the exception
 * and its cause from the client's standard error), not the stack frames it printed last. Method: a real bench run
 * (1 server, 1 client JVM) whose workload names a field-length histogram file that does not exist, which only the
 * client can find out (the file is read on the client's host).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClientFailureCauseTest {

  @Test
  void when_aYcsbClientFailsOnItsWorkload_then_theRunSaysTheCauseNotTheFrames(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("no-such-histogram.txt");
    Path file = dir.resolve("cause.yaml");
    Files.writeString(file, """
        name: cause
        cluster: { datacenters: 1, partitions: 1, storage: memory }
        protocols: [eventual]
        workload: { fieldcount: 1, fieldlengthdistribution: histogram, fieldlengthhistogram: %s }
        recordcount: 10
        duration: 1s
        """.formatted(missing));
    Experiment e = ExperimentLoader.load(file, ExperimentLoaderTest.INSTALLED);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ExperimentRunner runner = new ExperimentRunner(ExperimentRunner.Options.defaults()
        .withOutputRoot(dir.resolve("results")).withLog(new PrintStream(log, true)).withProgress(line -> { }));
    Results.ExperimentResult r = runner.run(e);

    assertEquals(1, r.runs().size(), log.toString());
    Results.RunResult run = r.runs().get(0);
    assertFalse(run.ok(), run.toString());
    String reason = run.reason();
    assertTrue(reason.contains("site.ycsb.WorkloadException: Couldn't read field length histogram file: " + missing),
        reason);
    assertTrue(reason.contains("(caused by java.io.FileNotFoundException: " + missing), reason);
    assertFalse(reason.contains("at site.ycsb."), "no stack frames: " + reason);
  }
}
