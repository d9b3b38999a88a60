package org.kvlab.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the kvlab CLI in this JVM ({@link Main#run}) and captures what it prints, for the CLI's tests. */
final class InProcessCli {
  private InProcessCli() {}

  /** The exit code and what the command wrote to standard output and standard error. */
  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      code = Main.run(args);
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
