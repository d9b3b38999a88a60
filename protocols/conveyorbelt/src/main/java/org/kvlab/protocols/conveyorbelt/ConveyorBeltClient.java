package org.kvlab.protocols.conveyorbelt;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.NodeId;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * Conveyor Belt client: an operation goes to the server its type's partitioning parameter routes to (the same
 * function the servers use, {@link Classification#route}), else to the session's datacenter's server; with
 * {@code routing=server} always to the latter, which redirects. GET is an operation reading its key, PUT one writing
 * it (both undeclared, so global at that server); a transaction is one operation over its keys.
 */
final class ConveyorBeltClient extends Client implements Transactions {
  private Classification classes;
  private boolean route;

  @Override
  protected void onStart() {
    classes = Classification.load(params().string("operations", "store"));
    route = params().string("routing", "client").equals("client");
  }

  /** The session's datacenter: the prefix {@code <d>@} of the server-specific ids it mints (evaluation programs). */
  int site() {
    return dc();
  }

  /** The session's clock, in microseconds (evaluation programs time operations with it). */
  long micros() {
    return clock().micros();
  }

  @Override
  public CompletableFuture<TxnResult> transact(TxnRequest request) {
    TxnReq.Builder b = TxnReq.newBuilder().addAllReads(request.reads()).putAllWrites(request.writes());
    if (request.procedure() != null) {
      b.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    return send(b.build()).thenApply(r -> result(r, request.keys()));
  }

  private CompletableFuture<TxnReply> send(TxnReq req) {
    NodeId to = topology().node(dc(), 0);
    if (route) {
      int s = classes.of(req.getProcedure(), req.getArgsList(), topology().datacenters()).server();
      to = s >= 0 ? topology().node(s, 0) : to;
    }
    return call(to, req, TxnReply.class);
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
