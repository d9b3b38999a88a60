package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: the {@code ./kvlab} launcher builds into the checkout ({@code mvn package}, never {@code install},
 * so the user's Maven repository keeps other checkouts' kvlab jars) and rebuilds only when source contents
 * changed: not after {@code mvn test} (files under target/, generated sources), not after a {@code touch}.
 * Method: the real launcher script copied into a temporary git checkout with a pom, one source file and
 * stand-ins for {@code mvn} (records its arguments, writes the jar) and {@code java} (prints its
 * arguments) first on the PATH; each case runs the launcher and counts the builds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherScriptTest {
  @TempDir Path root;
  private Path builds;

  @BeforeEach
  void checkout() throws Exception {
    Path script = Path.of("..", "kvlab").toAbsolutePath().normalize();
    assertTrue(Files.isRegularFile(script), "the launcher is at the repository root: " + script);
    Files.copy(script, root.resolve("kvlab"));
    Files.writeString(root.resolve("pom.xml"), "<project/>\n");
    Files.createDirectories(root.resolve("framework/src/main/java"));
    Files.writeString(root.resolve("framework/src/main/java/A.java"), "class A {}\n");
    Files.writeString(root.resolve(".gitignore"), "target/\n.kvlab/\n");
    Path bin = Files.createDirectories(root.resolve("fakebin"));
    builds = root.resolve("builds.txt");
    executable(bin.resolve("mvn"), "#!/bin/sh\necho \"$*\" >> '" + builds + "'\n"
        + "mkdir -p cluster-manager/target && echo jar$(date +%s%N) > cluster-manager/target/kvlab.jar\n");
    executable(bin.resolve("java"), "#!/bin/sh\necho \"java $*\"\n");
    run("git", "init", "-q");
    run("git", "add", ".");
  }

  @Test
  void when_launcherRuns_then_itPackagesIntoTheCheckoutAndRebuildsOnlyWhenSourceContentsChange() throws Exception {
    String out = launcher("--version");
    assertTrue(out.contains("org.kvlab.cli.Main --version"), out);
    List<String> first = Files.readAllLines(builds);
    assertEquals(1, first.size(), "first use builds once: " + first);
    assertTrue(first.get(0).contains("package"), first.get(0));
    assertFalse(first.get(0).contains("install"), "never mvn install: " + first.get(0));

    launcher("--version");
    assertEquals(1, Files.readAllLines(builds).size(), "nothing changed: no build");

    // what mvn test leaves behind: generated sources and classes under target/
    Files.createDirectories(root.resolve("framework/target/generated-sources/protobuf"));
    Files.writeString(root.resolve("framework/target/generated-sources/protobuf/G.java"), "class G {}\n");
    Files.setLastModifiedTime(root.resolve("framework/src/main/java/A.java"),
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    launcher("--version");
    assertEquals(1, Files.readAllLines(builds).size(), "target/ files and a touch do not rebuild");

    Files.writeString(root.resolve("framework/src/main/java/A.java"), "class A { int x; }\n");
    launcher("--version");
    assertEquals(2, Files.readAllLines(builds).size(), "a changed source rebuilds");

    Files.createDirectories(root.resolve("protocols/mine/src/main/java"));
    Files.writeString(root.resolve("protocols/mine/src/main/java/M.java"), "class M {}\n");
    launcher("--version");
    assertEquals(3, Files.readAllLines(builds).size(), "a new (untracked) source rebuilds");

    Files.writeString(root.resolve("cluster-manager/target/kvlab.jar"), "rebuilt by hand from other sources");
    launcher("--version");
    assertEquals(4, Files.readAllLines(builds).size(), "a jar not made by the launcher is rebuilt");

    launcher("--version");
    assertEquals(4, Files.readAllLines(builds).size());
  }

  private String launcher(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve("kvlab").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true);
    pb.environment().put("PATH", root.resolve("fakebin") + ":" + System.getenv("PATH"));
    pb.environment().remove("KVLAB_BUILD");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  private void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
