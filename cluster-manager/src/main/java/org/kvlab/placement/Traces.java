package org.kvlab.placement;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.kvlab.history.HistoryFiles;
import org.kvlab.history.Operation;
import org.kvlab.partitioning.TraceFile;

/**
 * The traces the placement advisor reads ({@code kvlab advise-placement}, the designer's Placement tab): a kvlab
 * history (JSON lines: each TXN's keys, each GET's or PUT's key) or plain text, one transaction's keys per line.
 */
public final class Traces {
  private Traces() {}

  /** The transactions of {@code file}, each as its keys: a history if its first non-blank character is '{'. */
  public static List<List<String>> read(Path file) throws IOException {
    String head;
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      head = lines.map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
    }
    if (!head.startsWith("{")) {
      return TraceFile.read(file);
    }
    List<List<String>> out = new ArrayList<>();
    for (Operation o : HistoryFiles.read(file).operations()) {
      if (o.type() == Operation.Type.TXN && o.txn() != null) {
        out.add(o.txn().request().keys());
      } else if (o.key() != null && (o.type() == Operation.Type.GET || o.type() == Operation.Type.PUT)) {
        out.add(List.of(o.key()));
      }
    }
    return out;
  }
}
