package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the kvlab CLI in a child JVM that has no AWS credentials anywhere: no AWS_* variables, an empty home (no
 * ~/.aws), instance metadata off. For the EC2 tests of what needs no credentials and of the error without them.
 */
final class CliWithoutAws {
  private CliWithoutAws() {}

  /** The exit code and what the command wrote to standard output and standard error. */
  record Run(int code, String out, String err) {}

  /** Runs {@code kvlab args} with {@code dir} as working directory (and its home under it); bounded to 2 minutes. */
  static Run run(Path dir, String... args) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Daws.disableEc2Metadata=true", "-Duser.home=" + home,
        "org.kvlab.cli.Main"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    pb.environment().put("HOME", home.toString());
    pb.environment().put("AWS_EC2_METADATA_DISABLED", "true");
    Process p = pb.start();
    try {
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the CLI did not finish");
    } finally {
      p.destroyForcibly();
    }
    return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt")), Files.readString(dir.resolve("err.txt")));
  }
}
