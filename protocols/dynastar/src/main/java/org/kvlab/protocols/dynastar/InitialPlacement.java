package org.kvlab.protocols.dynastar;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.kvlab.api.ParameterException;
import org.kvlab.partitioning.PlacementFile;

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
    Map<String, Integer> map;
    try {
      map = PlacementFile.read(text.substring(5), parts);
    } catch (IllegalArgumentException e) {
      String[] pf = e.getMessage().split("\\. Fix: ", 2);
      throw new ParameterException("placement", pf[0] + " (the cluster has " + parts + " data partitions: every"
          + " partition but the last, which is the oracle)", pf.length > 1 ? pf[1] : "write " + FORMS);
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
