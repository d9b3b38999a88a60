package org.kvlab.workload;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * The store as the readers of a history saw it at quiescence: the GETs invoked after every write had completed (a
 * transaction or put that ended OK: its completion; one whose outcome is unknown or failed: its invocation, as it may
 * take effect any time), grouped by the session that made them. The simulator's final reads are such readers, one
 * per datacenter, reading every key the run touched, so each reader's state is one replica's (or datacenter's) view
 * of the whole store. A reader with a GET that did not end OK is left out (its view has a hole).
 *
 * @param readers reader session → key → value read (empty = absent), in the order the readers first read
 * @param incomplete readers left out, with the key of their first failed read
 */
public record FinalState(Map<Integer, Map<String, Optional<ByteString>>> readers, Map<Integer, String> incomplete) {

  /** The final state of {@code history}. */
  public static FinalState of(History history) {
    long quiet = 0;
    for (Operation op : history.operations()) {
      if (op.type() == Operation.Type.TXN || op.type() == Operation.Type.PUT) {
        quiet = Math.max(quiet, op.ok() ? op.completeMicros() : op.invokeMicros());
      }
    }
    Map<Integer, Map<String, Optional<ByteString>>> readers = new LinkedHashMap<>();
    Map<Integer, String> incomplete = new TreeMap<>();
    List<Operation> gets = new ArrayList<>();
    for (Operation op : history.operations()) {
      if (op.type() == Operation.Type.GET && op.invokeMicros() > quiet) {
        gets.add(op);
      }
    }
    gets.sort(java.util.Comparator.comparingLong(Operation::invokeMicros));
    for (Operation op : gets) {
      if (!op.ok()) {
        incomplete.putIfAbsent(op.session(), op.key());
      } else {
        readers.computeIfAbsent(op.session(), s -> new TreeMap<>()).put(op.key(), op.readValue());
      }
    }
    incomplete.keySet().forEach(readers::remove);
    return new FinalState(readers, incomplete);
  }

  /** Why there is nothing to judge, or null if some reader saw the whole store. */
  public String missing() {
    if (!readers.isEmpty()) {
      return null;
    }
    return incomplete.isEmpty() ? "no read after the last write: nothing shows the final state. Fix: run in the"
        + " simulator with its final reads (the default), or read every key once the workload has stopped"
        : "every final reader had a read that did not end OK (reader " + incomplete.keySet().iterator().next()
            + " at key " + incomplete.values().iterator().next() + "): no complete view of the final state";
  }
}
