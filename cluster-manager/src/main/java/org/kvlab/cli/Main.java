package org.kvlab.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kvlab} command. Exit codes: 0 success; 1 an operation failed; 2 bad usage or an invalid
 * cluster file; 3 the cluster is not (fully) running.
 */
@Command(name = "kvlab", mixinStandardHelpOptions = true, version = "kvlab 0.1.0",
    description = "Prototype, test and benchmark distributed key-value store protocols.",
    subcommands = {DemoCommand.class, BenchCommand.class, LocalCommand.class, ShellCommand.class, SimCommand.class, ExploreCommand.class, CheckCommand.class, ClassifyCommand.class, AdvisePlacementCommand.class, ServerCommand.class, SshCommand.class, Ec2Command.class,
        ProtocolsCommand.class, ImportDkvfCommand.class, NewProtocolCommand.class, CommandLine.HelpCommand.class})
public final class Main {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int NOT_RUNNING = 3;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      cmd.getErr().println("kvlab: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return e instanceof CliException ce ? ce.code : FAILED;
    });
    try {
      return cli.execute(args);
    } catch (OutOfMemoryError e) { // picocli passes Errors through; say what to do instead of a raw trace
      System.err.println("kvlab: " + CheckCommand.outOfMemory("running " + String.join(" ", args)).getMessage());
      return FAILED;
    }
  }

  /** An error for the user: message printed without a stack trace, with an exit code. */
  static final class CliException extends RuntimeException {
    final int code;

    CliException(int code, String message) {
      super(message);
      this.code = code;
    }
  }
}
