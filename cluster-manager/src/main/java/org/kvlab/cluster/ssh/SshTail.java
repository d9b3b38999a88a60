package org.kvlab.cluster.ssh;

import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.cluster.FileTail;

/**
 * {@link org.kvlab.cluster.ClientHandle#readNew} over SSH: one POSIX shell command prints, per file of a remote
 * directory that grew past its offset, a {@code FILE name from to} line, the bytes {@code [from, to)} in base64 and
 * an {@code END} line; {@link #parse} turns that back into bytes. The file's size is taken first, so bytes written
 * while the command runs are read at the next call, whole.
 */
final class SshTail {
  /**
   * Longest wait for one read: a host that does not answer in time costs the bench's live view one interval (its
   * lines are read at the next), never the run.
   */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private SshTail() {}

  /** The command that prints the files of {@code remoteDir} past {@code offsets}, at most {@code maxBytes} each. */
  static String command(String remoteDir, Map<String, Long> offsets, int maxBytes) {
    StringBuilder known = new StringBuilder();
    offsets.forEach((name, off) -> {
      if (FileTail.NAME.matcher(name).matches()) {
        known.append(name).append(") o=").append(off).append(";; ");
      }
    });
    return "cd " + SshConnection.quote(remoteDir) + " 2>/dev/null || exit 0\n"
        + "for f in *; do\n"
        + "  [ -f \"$f\" ] || continue\n"
        + "  case \"$f\" in *[!A-Za-z0-9._-]*) continue;; esac\n"
        + "  o=0\n"
        + (known.length() == 0 ? "" : "  case \"$f\" in " + known + "esac\n")
        + "  s=$(wc -c < \"$f\") || continue\n"
        + "  s=$((s))\n"
        + "  [ \"$s\" -gt \"$o\" ] || continue\n"
        + "  [ $((s - o)) -le " + maxBytes + " ] || s=$((o + " + maxBytes + "))\n"
        + "  echo \"FILE $f $o $s\"\n"
        + "  tail -c +$((o + 1)) \"$f\" | head -c $((s - o)) | base64\n"
        + "  echo END\n"
        + "done\n";
  }

  /**
   * The output of {@link #command}: per file, its bytes from its offset. A file whose block is cut short or whose
   * range does not start at the offset asked for is left out (read again at the next call).
   */
  static Map<String, byte[]> parse(String output, Map<String, Long> offsets) {
    Map<String, byte[]> out = new TreeMap<>();
    String[] lines = output.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String[] head = lines[i].strip().split(" ");
      if (head.length != 4 || !head[0].equals("FILE")) {
        continue;
      }
      StringBuilder b64 = new StringBuilder();
      int j = i + 1;
      while (j < lines.length && !lines[j].strip().equals("END")) {
        b64.append(lines[j].strip());
        j++;
      }
      if (j == lines.length) {
        break; // cut short
      }
      i = j;
      try {
        long from = Long.parseLong(head[2]);
        long to = Long.parseLong(head[3]);
        byte[] bytes = Base64.getDecoder().decode(b64.toString());
        if (from == offsets.getOrDefault(head[1], 0L) && bytes.length == to - from) {
          out.put(head[1], bytes);
        }
      } catch (IllegalArgumentException e) {
        // a damaged block: left out
      }
    }
    return out;
  }
}
