package org.kvlab.protocols.dynastar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.ParameterException;

/**
 * Where a variable lives before any plan moves it: the {@code placement} parameter. {@code hash} spreads keys by a
 * hash of their bytes; {@code random} by a hash mixed with a constant, so it agrees with neither {@code hash} nor the
 * topology's own key hash (the seed's TPC-C run starts from a random placement); {@code file:<path>} reads
 * {@code key<TAB>partition} lines as {@code kvlab advise-placement --output} writes them, and places keys the file
 * does not name by {@code hash}. Every server computes the same function, so a variable nobody moved needs no entry
 * anywhere: creating a variable is its first access at the partition this placement names.
 */
final class InitialPlacement {
  static final String FORMS = "hash, random or file:<path> (key<TAB>partition lines, as kvlab advise-placement"
      + " --output writes)";
  private static final long RANDOM_MIX = 0x9E3779B97F4A7C15L;

  private final int parts;
  private final boolean random;
  private final Map<String, Integer> file;

  private InitialPlacement(int parts, boolean random, Map<String, Integer> file) {
    this.parts = parts;
    this.random = random;
    this.file = file;
  }

  /** The placement {@code text} names over {@code parts} data partitions; a {@link ParameterException} if bad. */
  static InitialPlacement parse(String text, int parts) {
    if (text.equals("hash") || text.equals("random")) {
      return new InitialPlacement(parts, text.equals("random"), Map.of());
    }
    if (!text.startsWith("file:") || text.length() == 5) {
      throw new ParameterException("placement", "'" + text + "' is not a placement", "write " + FORMS,
          List.of("hash", "random", "file:"));
    }
    Path path = Path.of(text.substring(5));
    List<String> lines;
    try {
      lines = Files.readAllLines(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ParameterException("placement", "cannot read " + path + " (" + e.getMessage() + ")",
          "give a readable file, e.g. one written by kvlab advise-placement TRACE --partitions " + parts
              + " --output " + path);
    }
    Map<String, Integer> map = new HashMap<>();
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
        throw new ParameterException("placement", path + " line " + (i + 1) + " '" + line + "' is not key<TAB>a"
            + " partition from 0 to " + (parts - 1) + " (the cluster's " + parts + " data partitions: every partition"
            + " but the last, which is the oracle)", "write key<TAB>partition lines, e.g. from kvlab advise-placement"
            + " TRACE --partitions " + parts + " --output FILE");
      }
      map.put(kp[0], p);
    }
    return new InitialPlacement(parts, false, Map.copyOf(map));
  }

  /** The partition {@code key} starts at. */
  int of(String key) {
    Integer p = file.get(key);
    if (p != null) {
      return p;
    }
    long h = 0xcbf29ce484222325L; // FNV-1a over the key's UTF-8 bytes
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    if (random) {
      h = (h ^ RANDOM_MIX) * 0xff51afd7ed558ccdL;
      h ^= h >>> 33;
    }
    return (int) Math.floorMod(h ^ (h >>> 29), (long) parts);
  }
}
