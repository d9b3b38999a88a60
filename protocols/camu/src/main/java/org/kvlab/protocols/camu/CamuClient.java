package org.kvlab.protocols.camu;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * CaMu client: a transaction goes to its origin, the partition of its first key (always a participant); get and put
 * are single-key transactions.
 */
final class CamuClient extends Client implements Transactions {

  @Override
  public CompletableFuture<TxnResult> transact(TxnRequest request) {
    long partitions = request.keys().stream().mapToInt(topology()::partitionOf).distinct().count();
    String refusal = TxnProcedures.splitRefusal(request, (int) partitions, "CaMu");
    if (refusal != null) {
      return CompletableFuture.failedFuture(new IllegalArgumentException(refusal));
    }
    return send(request, true);
  }

  private CompletableFuture<TxnResult> send(TxnRequest request, boolean api) {
    TxnReq.Builder b = TxnReq.newBuilder().addAllReads(request.reads()).putAllWrites(request.writes()).setApi(api);
    if (request.procedure() != null) {
      b.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    return call(serverFor(request.keys().get(0)), b.build(), TxnReply.class).thenApply(CamuClient::result);
  }

  static TxnResult result(TxnReply r) {
    Map<String, Optional<ByteString>> reads = new TreeMap<>();
    Map<String, ByteString> applied = new TreeMap<>();
    Map<Integer, TxnResult.Part> parts = new HashMap<>();
    for (PartResult p : r.getPartsList()) {
      for (KeyValue kv : p.getReadsList()) {
        reads.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue()) : Optional.empty());
      }
      for (KeyValue kv : p.getAppliedList()) {
        applied.put(kv.getKey(), kv.getValue());
      }
      parts.put(p.getPartition(), new TxnResult.Part(p.getTs(), p.getSeq(), new ArrayList<>(p.getKeysList())));
    }
    return new TxnResult(reads, applied, r.getTs(), r.getTid(), parts);
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return send(TxnRequest.of(List.of(key), Map.of()), false).thenApply(r -> r.reads().get(key));
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    return send(TxnRequest.of(List.of(), Map.of(key, value)), false).thenApply(r -> null);
  }
}
