package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The cause line of a YCSB client's standard error, from what YCSB 0.17.0 really printed (the resources were captured
 * from {@code site.ycsb.Client -t -db site.ycsb.BasicDB} with the property named in each file's name).
 */
class StackTraceCauseTest {

  private static String stderr(String name) throws IOException {
    try (InputStream in = StackTraceCauseTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void when_ycsbDiesOnAnUncaughtException_then_theCauseIsItsMessageNotAFrame() throws IOException {
    assertEquals("java.lang.NumberFormatException: For input string: \"NaN\"",
        StackTraceCause.of(stderr("ycsb-0.17.0-fieldlength-nan.stderr.txt")));
  }

  @Test
  void when_ycsbPrintsAWorkloadException_then_theCauseIsItsLine() throws IOException {
    assertEquals("site.ycsb.WorkloadException: Unknown request distribution \"abc\"",
        StackTraceCause.of(stderr("ycsb-0.17.0-requestdistribution-abc.stderr.txt")));
  }

  @Test
  void when_theExceptionHasACause_then_theRootCauseIsAdded() throws IOException {
    assertEquals("site.ycsb.WorkloadException: Couldn't read field length histogram file: /nonexistent/hist.txt"
            + " (caused by java.io.FileNotFoundException: /nonexistent/hist.txt (No such file or directory))",
        StackTraceCause.of(stderr("ycsb-0.17.0-histogram-missing.stderr.txt")));
  }

  @Test
  void when_linesArriveOneByOne_then_theClientKeepsTheCauseBeyondItsLastLines() {
    ClientProcess c = new ClientProcess("dc0-client0", null);
    String trace = "Loading workload...\n"
        + "site.ycsb.WorkloadException: Unknown request distribution \"abc\"\n"
        + "\tat site.ycsb.workloads.CoreWorkload.init(CoreWorkload.java:497)\n"
        + "\tat site.ycsb.Client.initWorkload(Client.java:466)\n"
        + "\tat site.ycsb.Client.main(Client.java:306)\n";
    trace.lines().forEach(c::onErrorLine);
    assertEquals("site.ycsb.WorkloadException: Unknown request distribution \"abc\"", c.causeLine());
  }

  @Test
  void when_thereIsNoException_then_thereIsNoCause() {
    assertNull(StackTraceCause.of("YCSB Client 0.17.0\n\nLoading workload...\nStarting test.\n"));
    assertNull(StackTraceCause.of("\tat site.ycsb.Client.main(Client.java:306)\n\t... 3 more\n"));
  }
}
