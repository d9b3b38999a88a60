package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.SessionGuarantees;

/**
 * A NuKV session (seed 003 Alg 4.1): the hrm/hwm matrices (highest log index read / written, per
 * datacenter and partition) and dtr/dtw (highest HLC time read / written) live only here. Reads go to a
 * random replica of the key's group in the session's current datacenter, writes to that group's leader
 * (found by following the replicas' hints). The session may change datacenter between operations.
 */
final class NuKVClient extends Client implements SessionGuarantees {
  /** Attempts of one PUT while the group has no leader or the hint is stale (each refusal is definite). */
  static final int PUT_ATTEMPTS = 300;

  /** Rules a mutant drops (tests only: each one breaks one guarantee, the checkers must notice). */
  enum Drop { HRM, HWM, DTW, DTR }

  private final java.util.Set<Drop> dropped;
  private final NuKVParams p = new NuKVParams();

  NuKVClient() {
    this(java.util.EnumSet.noneOf(Drop.class));
  }

  NuKVClient(java.util.Set<Drop> dropped) {
    this.dropped = java.util.EnumSet.noneOf(Drop.class);
    this.dropped.addAll(dropped);
  }
  private long[][] hrm;
  private long[][] hwm;
  private long dtr;
  private long dtw;
  /** Believed leader replica of each group, [dc][partition]. */
  private int[][] leader;

  @Override
  protected void onStart() {
    p.read(params());
    int dcs = topology().datacenters();
    int parts = topology().partitions();
    hrm = new long[dcs][parts];
    hwm = new long[dcs][parts];
    leader = new int[dcs][parts];
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return get(key, p.readLevel);
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    return put(key, value, p.writeLevel);
  }

  /** Column {@code partition} of {@code m} (one entry per datacenter), or zeros. */
  private Iterable<Long> column(long[][] m, int partition, boolean wanted) {
    java.util.List<Long> v = new java.util.ArrayList<>(m.length);
    for (long[] row : m) {
      v.add(wanted ? row[partition] : 0L);
    }
    return v;
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key, ReadLevel level) {
    int part = topology().partitionOf(key);
    int dc = dc();
    GetReq req = GetReq.newBuilder().setKey(key)
        .addAllHrv(column(hrm, part, level.monotonicReads() && !dropped.contains(Drop.HRM)))
        .addAllHwv(column(hwm, part, level.readYourWrites() && !dropped.contains(Drop.HWM))).build();
    int first = context().random().nextInt(topology().replicas());
    java.util.List<NodeId> order = new java.util.ArrayList<>();
    java.util.List<NodeId> avoided = new java.util.ArrayList<>();
    for (int i = 0; i < topology().replicas(); i++) {
      NodeId n = NodeId.of(dc, part, (first + i) % topology().replicas());
      (suspected(n) ? avoided : order).add(n);
    }
    order.addAll(avoided); // replicas that did not answer lately come last, but they are still tried
    return read(req, order, 0).thenApply(r -> {
      if (!r.getFound()) {
        return Optional.empty();
      }
      hrm[r.getDc()][part] = Math.max(hrm[r.getDc()][part], r.getLogIdx()); // Alg 4.1 line 16
      dtr = Math.max(dtr, r.getT());
      return Optional.of(r.getValue());
    });
  }

  /** A read from replica {@code order[i]}; a replica that fails it (down, not caught up) passes it to the next. */
  private CompletableFuture<GetReply> read(GetReq req, java.util.List<NodeId> order, int i) {
    NodeId target = order.get(i);
    return call(target, req, GetReply.class).exceptionallyCompose(e -> {
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      suspect(target); // down, unreachable or not caught up: the next read of the session avoids it for a while
      return i + 1 < order.size() ? read(req, order, i + 1) : CompletableFuture.failedFuture(cause);
    });
  }

  /** Replicas that did not answer, and until when (ms) reads and leader hints avoid them. */
  private final java.util.Map<NodeId, Long> suspects = new java.util.HashMap<>();

  private void suspect(NodeId n) {
    suspects.put(n, clock().millis() + SUSPECT_MILLIS);
  }

  private boolean suspected(NodeId n) {
    Long until = suspects.get(n);
    return until != null && until > clock().millis();
  }

  /** How long a replica that did not answer is avoided: about MicroRaft's failure detection (2 s) and more. */
  static final long SUSPECT_MILLIS = 5_000;

  @Override
  public CompletableFuture<Void> put(String key, ByteString value, WriteLevel level) {
    int part = topology().partitionOf(key);
    long dt = 0;
    if (level.writesFollowReads() && !dropped.contains(Drop.DTR)) {
      dt = dtr;
    }
    if (level.monotonicWrites() && !dropped.contains(Drop.DTW)) {
      dt = Math.max(dt, dtw); // Alg 4.1 prints "drw" here; dtw is meant (seed 003 §10)
    }
    PutReq.Builder req = PutReq.newBuilder().setKey(key).setValue(value).setDt(dt);
    if (!p.hlc) {
      // Without HLC the leader waits until it has what this write must follow (§4.4.2).
      req.addAllHrv(column(hrm, part, level.writesFollowReads() && !dropped.contains(Drop.DTR)))
          .addAllHwv(column(hwm, part, level.monotonicWrites() && !dropped.contains(Drop.DTW)));
    }
    return attempt(req.build(), dc(), part, PUT_ATTEMPTS, 4 * topology().replicas());
  }

  private CompletableFuture<Void> attempt(PutReq req, int dc, int part, int left, int refusals) {
    NodeId target = NodeId.of(dc, part, leader[dc][part]);
    return call(target, req.toBuilder().setAttempt(PUT_ATTEMPTS - left).build(), PutReply.class).thenCompose(r -> {
      if (!r.getNotLeader()) {
        hwm[r.getDc()][part] = Math.max(hwm[r.getDc()][part], r.getLogIdx());
        dtw = Math.max(dtw, r.getT()); // Alg 4.1 line 32
        return CompletableFuture.completedFuture(null);
      }
      int next = r.getLeader() >= 0 ? r.getLeader() : (target.replica() + 1) % topology().replicas();
      if (suspected(NodeId.of(dc, part, next))) {
        next = (next + 1) % topology().replicas(); // a stale hint: the hinted leader did not answer us lately
      }
      leader[dc][part] = next;
      if (left <= 1) {
        return CompletableFuture.failedFuture(new OperationException("no leader of group " + dc + "_" + part
            + " took the write after " + PUT_ATTEMPTS + " attempts (an election that does not end: is a majority"
            + " of the group up?)"));
      }
      return attempt(req, dc, part, left - 1, refusals);
    }).exceptionallyCompose(e -> {
      // A replica that is down: try the next one as leader (the write was not taken if the refusal is definite).
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof OperationException oe && !oe.outcomeUnknown() && left > 1 && refusals > 1
          && !oe.getMessage().startsWith("no leader of group")) {
        suspect(target); // refused (down, or not the leader after all): stale hints to it are skipped for a while
        leader[dc][part] = (target.replica() + 1) % topology().replicas();
        return attempt(req, dc, part, left - 1, refusals - 1);
      }
      if (cause instanceof OperationException oe && oe.outcomeUnknown() && leader[dc][part] == target.replica()) {
        // No answer (a crashed leader, a lost connection): the write may have been taken, so it is not retried,
        // but the session's next write tries the next replica.
        leader[dc][part] = (target.replica() + 1) % topology().replicas();
        suspect(target);
      }
      return CompletableFuture.failedFuture(cause);
    });
  }
}
