package org.kvlab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** YCSB's client JVMs run in their run's directory: the class path bench hands them must not be relative. */
class ClassPathTest {
  @Test
  void when_theBenchWasStartedWithARelativeClassPath_then_theClientsGetAbsoluteEntries() {
    String cwd = Path.of("").toAbsolutePath().toString();
    String cp = "cluster-manager/target/kvlab.jar" + File.pathSeparator + "/opt/x/y.jar" + File.pathSeparator;
    assertEquals(cwd + "/cluster-manager/target/kvlab.jar" + File.pathSeparator + "/opt/x/y.jar",
        ExperimentRunner.Options.absolute(cp));
    for (String e : ExperimentRunner.Options.defaults().classpath().split(File.pathSeparator)) {
      assertTrue(Path.of(e).isAbsolute(), e);
    }
  }
}
