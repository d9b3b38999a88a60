package org.kvlab.protocols.dynastar;

import com.google.protobuf.ByteString;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * DynaStar client (the seed's Algorithm 1): a location cache per session. A command whose keys are all cached goes
 * to its destination ({@link DestinationRule} over the cached locations), which multicasts it; otherwise, or after
 * a "retry" (some partition did not hold what the cache said), the session drops those keys from its cache, asks the
 * oracle where they live, and tries again, up to {@code maxRetries} times (then a definite failure: a retried command
 * never executed). GET and PUT are single-key commands.
 *
 * <p>Replicated partitions ({@link Groups}): every attempt of a command carries the session's id (drawn at start),
 * a request number and the session's lowest number still unanswered. The session sends it to the replica it
 * believes leads the destination's group; a {@code not_leader} answer points it to the leader (or the next
 * replica), and a failed call (a crashed or cut-off replica, the client timeout) sends the same request, same number,
 * to the next replica: the group executes the first copy it delivers and answers the others with the same reply, so
 * a command never executes twice. After {@value #TRIES} sends of one number without an answer the outcome is unknown
 * (and the number stays "unanswered" in the low-water mark for good: a copy may still arrive at the groups, and all
 * of them must take the same decision on it). A "retry" starts a new number. Location queries go to the oracle
 * replica of the session's datacenter (replicated across datacenters) or the first, and to the next on a failure.
 */
final class DynaStarClient extends Client implements Transactions {
  /** Sends of one request number (to the replicas of its group, following leader hints) before giving up. */
  static final int TRIES = 300;
  private final Map<String, Integer> cache = new HashMap<>();
  private long session;
  private long next;
  private final TreeSet<Long> unanswered = new TreeSet<>();
  private int[] leader;

  @Override
  protected void onStart() {
    if (Groups.replicated(topology())) {
      // only the replicated shape numbers its requests: one server per partition draws nothing, so its runs keep
      // the random stream (the workload's draws) they had before replication was built
      session = context().random().nextLong() | 1; // nonzero
    }
    leader = new int[topology().partitions()];
    if (topology().datacenters() > 1) {
      java.util.Arrays.fill(leader, dc()); // replica d of every partition lives in datacenter d
    }
  }

  @Override
  public CompletableFuture<TxnResult> transact(TxnRequest request) {
    ExecReq.Builder b = ExecReq.newBuilder().addAllReads(request.reads()).putAllWrites(request.writes());
    if (request.procedure() != null) {
      b.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    List<String> keys = request.keys();
    return attempt(b.build(), keys, 0).thenApply(r -> result(r, keys));
  }

  private CompletableFuture<ExecReply> attempt(ExecReq req, List<String> keys, int tries) {
    if (!cache.keySet().containsAll(keys)) {
      return locate(LocateReq.newBuilder().addAllKeys(keys).build(), 0)
          .thenCompose(l -> {
            cache.putAll(l.getLocsMap());
            return send(req, keys, tries);
          });
    }
    return send(req, keys, tries);
  }

  private CompletableFuture<ExecReply> send(ExecReq req, List<String> keys, int tries) {
    Map<String, Integer> locs = new TreeMap<>();
    for (String k : keys) {
      Integer p = cache.get(k);
      if (p == null) {
        return attempt(req, keys, tries); // another command of this session dropped it meanwhile
      }
      locs.put(k, p);
    }
    int d = params().string("mutant", "none").equals("client-destination") ? DestinationRule.highestOnTies(locs)
        : DestinationRule.target(locs);
    return exec(d, req.toBuilder().putAllLocs(locs).build()).thenCompose(r -> {
      if (!r.getRetry()) {
        return CompletableFuture.completedFuture(r);
      }
      keys.forEach(cache::remove);
      int max = params().intValue("maxRetries", 8);
      if (tries + 1 >= max) {
        return CompletableFuture.failedFuture(new OperationException("dynastar: " + max + " tries of a command over "
            + keys + " found its variables elsewhere each time (plans moving them); it did not execute. Fix: try"
            + " again, or raise maxRetries"));
      }
      return attempt(req, keys, tries + 1);
    });
  }

  /** Asks the oracle (replicated: its replicas in turn, from the session's, until one answers). */
  private CompletableFuture<LocateReply> locate(LocateReq q, int tried) {
    int o = DynaStar.oracle(topology());
    if (!Groups.replicated(topology())) {
      return call(NodeId.of(dc(), o), q, LocateReply.class);
    }
    List<NodeId> group = Groups.of(topology(), o);
    NodeId n = group.get((leader[o] + tried) % group.size());
    return call(n, q, LocateReply.class).exceptionallyCompose(e -> tried + 1 < group.size() ? locate(q, tried + 1)
        : CompletableFuture.failedFuture(e));
  }

  /** Sends a command to its destination partition {@code d} (replicated: to its group, see the class comment). */
  private CompletableFuture<ExecReply> exec(int d, ExecReq req) {
    if (!Groups.replicated(topology())) {
      return call(NodeId.of(dc(), d), req, ExecReply.class);
    }
    long n = ++next;
    unanswered.add(n);
    return send(d, req.toBuilder().setClient(session).setReq(n).build(), TRIES).thenApply(r -> {
      unanswered.remove(n);
      return r;
    });
  }

  private CompletableFuture<ExecReply> send(int d, ExecReq req, int left) {
    List<NodeId> group = Groups.of(topology(), d);
    NodeId target = group.get(leader[d]);
    ExecReq now = req.toBuilder().setLow(unanswered.first()).build();
    return call(target, now, ExecReply.class).handle((r, e) -> {
      if (r != null && !r.getNotLeader()) {
        return CompletableFuture.completedFuture(r);
      }
      leader[d] = r != null && r.getLeader() > 0 && r.getLeader() - 1 != leader[d] ? r.getLeader() - 1
          : (leader[d] + 1) % group.size();
      if (left <= 1) {
        return CompletableFuture.<ExecReply>failedFuture(OperationException.unknown("dynastar: no replica of"
            + " partition " + d + " took request " + req.getReq() + " after " + TRIES + " sends (is a majority of"
            + " its group up and connected?); it may still execute"));
      }
      return send(d, req, left - 1);
    }).thenCompose(f -> f);
  }

  static TxnResult result(ExecReply r, List<String> keys) {
    Map<String, Optional<ByteString>> reads = new TreeMap<>();
    r.getReadsList().forEach(kv -> reads.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue())
        : Optional.empty()));
    Map<String, ByteString> writes = new TreeMap<>();
    r.getWritesList().forEach(kv -> writes.put(kv.getKey(), kv.getValue()));
    return new TxnResult(reads, writes, r.getTs(), r.getId(),
        Map.of(r.getPartition(), new TxnResult.Part(r.getTs(), r.getSeq(), keys)));
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return transact(TxnRequest.of(List.of(key), Map.of())).thenApply(r -> r.reads().get(key));
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    return transact(TxnRequest.of(List.of(), Map.of(key, value))).thenApply(r -> null);
  }
}
