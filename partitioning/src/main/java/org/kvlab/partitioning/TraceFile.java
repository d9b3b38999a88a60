package org.kvlab.partitioning;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The plain trace format: one transaction per line, its keys separated by blanks; blank lines and lines starting
 * with {@code #} are skipped. (kvlab's history files, JSON lines, are read by the CLI through the history reader.)
 */
public final class TraceFile {
  private TraceFile() {}

  public static List<List<String>> read(Path file) throws IOException {
    List<List<String>> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String t = line.strip();
      if (!t.isEmpty() && !t.startsWith("#")) {
        out.add(Arrays.asList(t.split("\\s+")));
      }
    }
    return out;
  }
}
