package org.kvlab.protocols.nukv;

import java.util.List;
import org.kvlab.history.Operation;

/**
 * How long the writes of one datacenter's writer (session 0) took to reach the other datacenter's reader (session 1)
 * in a simulated history: per acknowledged write, the time from its acknowledgement to the first read there that
 * returned it or a later value (values are "v" + a running index). Used by the leader-crash tests.
 *
 * @param worstMicros the longest delay ({@link Long#MAX_VALUE}: a write never arrived)
 * @param worstPut the write with that delay (null if none was checked)
 * @param checked the acknowledged writes checked
 */
record ForwardingDelay(long worstMicros, Operation worstPut, int checked) {

  /** Over the writes acknowledged up to {@code lastAckMicros} (later ones may not have had the time to arrive). */
  static ForwardingDelay of(List<Operation> ops, long lastAckMicros) {
    List<Operation> puts = ops.stream().filter(o -> o.session() == 0 && o.type() == Operation.Type.PUT).toList();
    List<Operation> reads = ops.stream().filter(o -> o.session() == 1 && o.type() == Operation.Type.GET && o.ok()
        && o.readValue().isPresent()).toList();
    long worst = 0;
    Operation worstPut = null;
    int checked = 0;
    for (Operation put : puts) {
      if (!put.ok() || put.completeMicros() > lastAckMicros) {
        continue;
      }
      int i = index(put.value().toStringUtf8());
      long arrival = Long.MAX_VALUE;
      for (Operation r : reads) {
        if (index(r.readValue().get().toStringUtf8()) >= i) {
          arrival = Math.min(arrival, r.completeMicros());
        }
      }
      long delay = arrival == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, arrival - put.completeMicros());
      if (delay > worst) {
        worst = delay;
        worstPut = put;
      }
      checked++;
    }
    return new ForwardingDelay(worst, worstPut, checked);
  }

  /** "write W reached datacenter 1's reader only after N ms (bound B ms)". */
  String describe(long boundMicros) {
    return "write " + (worstPut == null ? "" : worstPut.describe()) + " reached datacenter 1's reader only after "
        + (worstMicros == Long.MAX_VALUE ? "never" : worstMicros / 1000 + " ms") + " (bound " + boundMicros / 1000
        + " ms)";
  }

  private static int index(String value) {
    return Integer.parseInt(value.substring(1));
  }
}
