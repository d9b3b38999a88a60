package org.kvlab.config;

/**
 * A cluster or experiment file is invalid. {@link #getMessage()} is meant for people: it names the
 * file, the line and column, what is wrong and how to fix it, e.g.
 * {@code examples/x.yaml:12:11: servers[3].port: 70000 is not a port. Fix: use a number from 1 to 65535.}
 */
public final class ConfigException extends Exception {
  private final String file;
  private final int line;

  public ConfigException(String file, int line, int column, String problem, String fix) {
    super(file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "") + ": " + problem
        + (fix == null || fix.isEmpty() ? "" : ". Fix: " + fix));
    this.file = file;
    this.line = line;
  }

  public String file() {
    return file;
  }

  /** 1-based line of the problem, or 0 if it concerns the whole file. */
  public int line() {
    return line;
  }
}
