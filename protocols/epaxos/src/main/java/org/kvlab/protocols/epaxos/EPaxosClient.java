package org.kvlab.protocols.epaxos;

import com.google.protobuf.ByteString;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * EPaxos client: every operation is a command sent to the session's own replica (its datacenter's server), which
 * leads it and answers once it executed it. GET and PUT are single-key commands; a transaction is one command over
 * all its keys.
 */
final class EPaxosClient extends Client implements Transactions {

  @Override
  public CompletableFuture<TxnResult> transact(TxnRequest request) {
    Command.Builder c = Command.newBuilder().addAllKeys(request.keys()).addAllReads(request.reads())
        .putAllWrites(request.writes());
    if (request.procedure() != null) {
      c.setProcedure(request.procedure()).addAllArgs(request.args());
    }
    return send(c.build()).thenApply(EPaxosClient::result);
  }

  /**
   * The result: reads and writes, EPaxos's seq as the timestamp and the instance as the id. No parts: EPaxos has no
   * global delivery sequence (replicas agree on the order of interfering commands only), so the ordering-metadata
   * txn checker does not apply; the black-box serializable checkers do.
   */
  static TxnResult result(ClientReply r) {
    Map<String, Optional<ByteString>> reads = new TreeMap<>();
    r.getReadsList().forEach(kv -> reads.put(kv.getKey(),
        kv.getFound() ? Optional.of(kv.getValue()) : Optional.empty()));
    Map<String, ByteString> writes = new TreeMap<>();
    r.getWritesList().forEach(kv -> writes.put(kv.getKey(), kv.getValue()));
    return new TxnResult(reads, writes, r.getSeq(), r.getTid(), Map.of());
  }

  private CompletableFuture<ClientReply> send(Command c) {
    return call(serverFor(c.getKeys(0)), ClientReq.newBuilder().setCmd(c).build(), ClientReply.class);
  }

  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    return send(Command.newBuilder().addKeys(key).addReads(key).build())
        .thenApply(r -> r.getReads(0).getFound() ? Optional.of(r.getReads(0).getValue()) : Optional.empty());
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    return send(Command.newBuilder().addKeys(key).putWrites(key, value).build()).thenApply(r -> null);
  }

}
