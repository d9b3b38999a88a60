package org.kvlab.partitioning;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a placement map as {@link PlacementAdvice#writeMap} writes it ({@code kvlab advise-placement --output}):
 * {@code key<TAB>partition} lines; blank lines are skipped. A protocol that starts from a placement map (DynaStar's
 * {@code placement=file:<path>}) reads it here, since protocol code does no file IO of its own.
 */
public final class PlacementFile {
  private PlacementFile() {}

  /**
   * The map in {@code path}, key → partition, in file order.
   *
   * @throws IllegalArgumentException naming the file, the line and the fix, if the file cannot be read, or a line is
   *     not a key, a tab and a partition from 0 to {@code parts - 1}
   */
  public static Map<String, Integer> read(String path, int parts) {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of(path), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + path + " (" + e.getMessage() + "). Fix: give a readable"
          + " file, e.g. one written by kvlab advise-placement TRACE --partitions " + parts + " --output " + path, e);
    }
    Map<String, Integer> map = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      String[] kp = line.split("\t");
      int p = -1;
      if (kp.length == 2 && !kp[0].isEmpty()) {
        try {
          p = Integer.parseInt(kp[1].trim());
        } catch (NumberFormatException e) {
          p = -1;
        }
      }
      if (p < 0 || p >= parts) {
        throw new IllegalArgumentException(path + " line " + (i + 1) + " '" + line + "' is not key<TAB>a partition"
            + " from 0 to " + (parts - 1) + ". Fix: write key<TAB>partition lines for " + parts + " partitions, e.g."
            + " with kvlab advise-placement TRACE --partitions " + parts + " --output " + path);
      }
      map.put(kp[0], p);
    }
    return map;
  }
}
