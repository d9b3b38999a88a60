package org.kvlab.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** {@link ClientHandle#readNew} for files on this machine: the bytes each file of a directory gained past an offset. */
public final class FileTail {
  /** The file names {@link ClientHandle#readNew} reads (names safe in a remote shell command). */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");

  private FileTail() {}

  /** Per file of {@code dir} with bytes past {@code offsets.get(name)} (0 if absent): up to {@code maxBytes} of them. */
  public static Map<String, byte[]> readNew(Path dir, Map<String, Long> offsets, int maxBytes) {
    Map<String, byte[]> out = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> NAME.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p)).toList();
    } catch (IOException e) {
      return out;
    }
    for (Path f : files) {
      String name = f.getFileName().toString();
      long from = offsets.getOrDefault(name, 0L);
      try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
        long length = r.length();
        if (length <= from) {
          continue;
        }
        byte[] bytes = new byte[(int) Math.min(length - from, maxBytes)];
        r.seek(from);
        r.readFully(bytes);
        out.put(name, bytes);
      } catch (IOException e) {
        // unreadable now (e.g. being replaced): left out, read again at the next call
      }
    }
    return out;
  }
}
