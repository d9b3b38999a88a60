package org.kvlab.protocols.camu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.Invariants;
import org.kvlab.api.Metrics;
import org.kvlab.api.Request;

/**
 * The origin's side of the transactions it accepted: each client's request, held until every participant's result
 * is in, then answered with all of them; and the thesis's latency metric. Volatile: a crash loses the open requests
 * (their clients see an unknown outcome), while the transactions themselves still run everywhere.
 */
final class CamuCoordinator {
  private static final class Coord {
    final Request<TxnReq> request;
    final int parts;
    final List<PartResult> results = new ArrayList<>();
    long batched = -1;
    String kind = "";

    Coord(Request<TxnReq> request, int parts) {
      this.request = request;
      this.parts = parts;
    }
  }

  private final Metrics metrics;
  private final Map<Long, Coord> coords = new HashMap<>();
  private long firstSeqOfIncarnation = 1; // transactions with a lower local sequence were batched before a restart

  CamuCoordinator(Metrics metrics) {
    this.metrics = metrics;
  }

  /** This partition restarted: its transactions below local sequence {@code firstSeq} lost their requests. */
  void restarted(long firstSeq) {
    firstSeqOfIncarnation = firstSeq;
  }

  /** Transaction {@code tid} of {@code request}, over {@code parts} participants, is accepted here. */
  void accepted(long tid, Request<TxnReq> request, int parts) {
    coords.put(tid, new Coord(request, parts));
  }

  /** Transaction {@code tid} was dispatched by the round that started at {@code roundStart}, as {@code kind}. */
  void batched(long tid, long roundStart, String kind) {
    Coord c = coords.get(tid);
    c.batched = roundStart;
    c.kind = kind;
  }

  /** A participant's result (also this partition's own); the client's answer once all are in. */
  void onResult(PartResult r) {
    Coord c = coords.get(r.getTid());
    if (c == null) {
      // a transaction batched before this partition crashed: it still runs everywhere, but its client's request
      // died with the crash (the client sees an unknown outcome); anything newer must have a coordinator
      Invariants.check((r.getTid() & ((1L << 40) - 1)) < firstSeqOfIncarnation,
          "camu: result of unknown transaction %s from partition %s", r.getTid(), r.getPartition());
      metrics.count("camu.resultsOfCrashedCoordinator");
      return;
    }
    c.results.add(r);
    if (c.results.size() == c.parts) {
      coords.remove(r.getTid());
      if (c.batched >= 0) { // the thesis's metric: from the batching round to execution at the last participant
        long last = 0;
        for (PartResult p : c.results) {
          last = Math.max(last, p.getExec());
        }
        metrics.record("camu.latencyMicros", last - c.batched);
        metrics.record("camu.latencyMicros." + c.kind, last - c.batched);
      }
      long ts = c.results.get(0).getTs();
      c.request.reply(TxnReply.newBuilder().setTs(ts).setTid(r.getTid()).addAllParts(c.results).build());
    }
  }
}
