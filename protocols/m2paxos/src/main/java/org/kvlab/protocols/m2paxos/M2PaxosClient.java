package org.kvlab.protocols.m2paxos;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * M²Paxos client: every operation is a command proposed at the server of the session's datacenter (the topology has
 * one partition). GET is a command reading its key, PUT one writing it; a transaction is one command over its keys.
 */
final class M2PaxosClient extends Client implements Transactions {

  @Override
  public CompletableFuture<TxnResult> transact(TxnRequest request) {
    TxnReq.Builder b = TxnReq.newBuilder().addAllReads(request.reads()).putAllWrites(request.writes());
    if (request.procedure() != null) {
      b.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    return send(b.build()).thenApply(r -> result(r, request.keys()));
  }

  private CompletableFuture<TxnReply> send(TxnReq req) {
    String first = req.getReadsCount() > 0 ? req.getReads(0) : req.getWritesMap().keySet().iterator().next();
    return call(serverFor(first), req, TxnReply.class);
  }

  static TxnResult result(TxnReply r, List<String> keys) {
    Map<String, Optional<ByteString>> reads = new TreeMap<>();
    r.getReadsList().forEach(kv -> reads.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue())
        : Optional.empty()));
    Map<String, ByteString> writes = new TreeMap<>();
    r.getWritesList().forEach(kv -> writes.put(kv.getKey(), kv.getValue()));
    return new TxnResult(reads, writes, r.getTs(), r.getTid(),
        Map.of(0, new TxnResult.Part(r.getTs(), r.getTs(), keys)));
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return send(TxnReq.newBuilder().addReads(key).build())
        .thenApply(r -> r.getReads(0).getFound() ? Optional.of(r.getReads(0).getValue()) : Optional.empty());
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    return send(TxnReq.newBuilder().putWrites(key, value).build()).thenApply(r -> null);
  }
}
