package org.kvlab.protocols.dynastar;

import com.google.protobuf.ByteString;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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
 */
final class DynaStarClient extends Client implements Transactions {
  private final Map<String, Integer> cache = new HashMap<>();

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
      NodeId oracle = NodeId.of(dc(), DynaStar.oracle(topology()));
      return call(oracle, LocateReq.newBuilder().addAllKeys(keys).build(), LocateReply.class)
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
    return call(NodeId.of(dc(), d), req.toBuilder().putAllLocs(locs).build(), ExecReply.class).thenCompose(r -> {
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
