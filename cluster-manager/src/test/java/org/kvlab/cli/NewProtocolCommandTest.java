package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** new-protocol renders the archetype's files into protocols/NAME and registers the module (on a copy of the poms). */
class NewProtocolCommandTest {
  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  private static Path copyOfRepoSkeleton(Path dir) throws IOException {
    Files.copy(REPO.resolve("pom.xml"), dir.resolve("pom.xml"));
    Files.createDirectories(dir.resolve("cluster-manager"));
    Files.copy(REPO.resolve("cluster-manager/pom.xml"), dir.resolve("cluster-manager/pom.xml"));
    Path from = REPO.resolve("templates");
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.filter(Files::isRegularFile).filter(f -> !from.relativize(f).startsWith("target")).toList()) {
        Path to = dir.resolve("templates").resolve(from.relativize(f));
        Files.createDirectories(to.getParent());
        Files.copy(f, to);
      }
    }
    return dir;
  }

  @Test
  void when_aProtocolIsCreated_then_everyFileIsRenderedAndTheBuildNamesIt(@TempDir Path dir) throws IOException {
    Path root = copyOfRepoSkeleton(dir);
    Path module = NewProtocolCommand.create(root, "mine", "eventual");
    for (String f : List.of("pom.xml", "src/main/proto/mine.proto", "cluster.yaml", "experiment.yaml",
        "src/main/java/org/kvlab/protocols/mine/Mine.java", "src/main/java/org/kvlab/protocols/mine/MineServer.java",
        "src/main/java/org/kvlab/protocols/mine/MineClient.java", "src/test/java/org/kvlab/protocols/mine/MineSimTest.java",
        "src/test/java/org/kvlab/protocols/mine/DeterminismRuleTest.java",
        "src/main/resources/META-INF/services/org.kvlab.api.Protocol")) {
      assertTrue(Files.isRegularFile(module.resolve(f)), f + " missing");
      String text = Files.readString(module.resolve(f));
      assertFalse(text.contains("${protocolName}") || text.contains("${ProtocolName}") || text.contains("${package}"),
          f + " still has a template variable");
    }
    assertEquals("org.kvlab.protocols.mine.Mine",
        Files.readString(module.resolve("src/main/resources/META-INF/services/org.kvlab.api.Protocol")).trim());
    assertTrue(Files.readString(module.resolve("pom.xml")).contains("<artifactId>kvlab-protocol-mine</artifactId>"));
    String pom = Files.readString(root.resolve("pom.xml"));
    assertTrue(pom.contains("<module>protocols/mine</module>"), "root pom module");
    assertTrue(pom.contains("<artifactId>kvlab-protocol-mine</artifactId><version>${project.version}</version>"), "dependencyManagement");
    assertTrue(Files.readString(root.resolve("cluster-manager/pom.xml"))
        .contains("<artifactId>kvlab-protocol-mine</artifactId></dependency>"), "cluster-manager dependency");
  }

  @Test
  void when_theNameIsBadTakenOrTheTemplateUnknown_then_itIsRefusedWithTheFix(@TempDir Path dir) throws IOException {
    Path root = copyOfRepoSkeleton(dir);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> NewProtocolCommand.create(root, "My-Proto", "eventual"))
        .getMessage().contains("Fix:"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> NewProtocolCommand.create(root, "mine", "paxos"))
        .getMessage().contains("[eventual]"));
    NewProtocolCommand.create(root, "mine", "eventual");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> NewProtocolCommand.create(root, "mine", "eventual"))
        .getMessage().contains("exists already"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> NewProtocolCommand.create(root, "eventual", "eventual"))
        .getMessage().contains("Fix:"));
  }

  @Test
  void when_helpIsAsked_then_theLikeOptionListsItsTemplates() {
    java.io.StringWriter out = new java.io.StringWriter();
    new picocli.CommandLine(new NewProtocolCommand()).usage(new java.io.PrintWriter(out));
    String help = out.toString().replaceAll("\\s+", " ");
    assertTrue(help.contains("the protocol to start from: " + String.join(", ", NewProtocolCommand.LIKE)), help);
  }

  @Test
  void when_theNextStepIsPrinted_then_itRunsOnlyTheNewModulesTests() {
    List<String> cmd = NewProtocolCommand.testCommand("pb");
    assertTrue(cmd.containsAll(List.of("-pl", "protocols/pb", "-am", "test", "-Dtest=org.kvlab.protocols.pb.**",
        "-Dsurefire.failIfNoSpecifiedTests=false")), cmd.toString());
    assertFalse(cmd.contains("-o"), "a fresh clone has no test plug-ins yet: the first build must be online");
  }
}
