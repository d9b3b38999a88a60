package org.kvlab.dkvf;

import java.nio.file.Path;

/** A DKVF descriptor that cannot be imported: file, line (0 if unknown), cause and fix. */
public final class DkvfImportException extends Exception {
  public DkvfImportException(Path file, int line, String cause, String fix) {
    super(file + (line > 0 ? ":" + line : "") + ": " + (cause.endsWith(".") ? cause.substring(0, cause.length() - 1) : cause) + ". Fix: " + fix + ".");
  }
}
