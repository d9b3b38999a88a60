package org.kvlab.eval;

import java.util.Arrays;
import java.util.List;

/**
 * The command line of an evaluation program (a class with a main in a module's {@code src/bench/java}, run by
 * {@code scripts/bench/eval}): {@code --help}, and bad arguments told in the house style (the cause, then
 * "Fix:" and the usage) with exit code 2 instead of a stack trace. Only the programs' mains use it: they are front
 * ends, so it prints and exits.
 */
public final class ProgramArgs {
  private final String program;
  private final String command;
  private final String[] args;

  private ProgramArgs(String module, String program, String usage, String[] args) {
    this.program = program;
    this.command = "scripts/bench/eval " + module + " " + program + " " + usage;
    this.args = args;
  }

  /**
   * The arguments of {@code program} (a simple class name) in {@code module} (as scripts/bench/eval names it), whose
   * usage (what follows its name) is {@code usage}. With {@code -h} or {@code --help} among them, prints the usage
   * and returns null (the program then returns); with more than {@code max} of them, exits 2.
   */
  public static ProgramArgs of(String module, String program, String usage, String[] args, int max) {
    ProgramArgs a = new ProgramArgs(module, program, usage, args);
    if (Arrays.stream(args).anyMatch(s -> s.equals("-h") || s.equals("--help"))) {
      System.out.println("Usage: " + a.command);
      return null;
    }
    if (args.length > max) {
      throw a.fail("at most " + max + " arguments, got " + args.length);
    }
    return a;
  }

  /** How many arguments were given. */
  public int count() {
    return args.length;
  }

  /** Argument {@code i}, or {@code otherwise} when there are fewer. */
  public String text(int i, String otherwise) {
    return i < args.length ? args[i] : otherwise;
  }

  /** Argument {@code i} (named {@code name} in messages) as a whole number of at least 1, or {@code otherwise}. */
  public long positive(int i, String name, long otherwise) {
    return i < args.length ? number(name, args[i], 1) : otherwise;
  }

  /** {@code value}, the value of {@code name}, as a whole number of at least {@code min}; exits 2 when it is not. */
  public long number(String name, String value, long min) {
    long n;
    try {
      n = Long.parseLong(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw fail(name + " must be a whole number, not '" + value + "'");
    }
    if (n < min) {
      throw fail(name + " must be at least " + min + ", not " + n);
    }
    return n;
  }

  /** {@code value}, the value of option {@code name}, as comma-separated whole numbers of at least {@code min}. */
  public List<Integer> numbers(String name, String value, int min) {
    return Arrays.stream(value.split(",")).map(v -> Math.toIntExact(number(name, v, min))).toList();
  }

  /** {@code value}, the value of option {@code name}, as a comma-separated list of some of {@code allowed}. */
  public List<String> choices(String name, String value, List<String> allowed) {
    List<String> out = List.of(value.split(","));
    for (String v : out) {
      if (!allowed.contains(v)) {
        throw fail(name + " takes " + String.join(", ", allowed) + ", not '" + v + "'");
      }
    }
    return out;
  }

  /**
   * Prints "{@code program: cause. Fix: command line}" to standard error and exits with code 2; declared to return an
   * exception so that callers can write {@code throw args.fail(...)} where the compiler needs an end.
   */
  public IllegalStateException fail(String cause) {
    System.err.println(program + ": " + cause + ". Fix: " + command);
    System.exit(2);
    return new IllegalStateException(cause);
  }
}
