package org.kvlab.command;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.NodeId;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;

/**
 * The client of a protocol whose servers take the shared {@link CommandRequest} and answer a {@link CommandReply}:
 * GET, PUT and every transaction are one command each, sent with {@code call} to {@link #serverOf} (an error, an
 * unreachable server: the call's {@code OperationException}; no timeout or retry of its own, no state). A protocol
 * overrides {@link #serverOf} to route (the default: the server of the command's first key in the session's
 * datacenter) and {@link #result} if its reply's ts is not a position in one delivery sequence.
 */
public abstract class CommandClient extends Client implements Transactions {

  /** Where {@code c} goes: the server of its first key (sorted) in the session's datacenter. */
  protected NodeId serverOf(CommandRequest c) {
    return serverFor(Commands.keys(c).get(0));
  }

  /** The API's result of {@code request}'s reply: {@link Commands#sequenced} over the request's keys. */
  protected TxnResult result(CommandReply reply, TxnRequest request) {
    return Commands.sequenced(reply, request.keys());
  }

  /** Sends {@code c} to {@link #serverOf}. */
  protected final CompletableFuture<CommandReply> send(CommandRequest c) {
    return call(serverOf(c), c, CommandReply.class);
  }

  @Override
  public final CompletableFuture<TxnResult> transact(TxnRequest request) {
    return send(Commands.request(request)).thenApply(r -> result(r, request));
  }

  @Override
  public final CompletableFuture<Optional<ByteString>> get(String key) {
    return send(Commands.get(key)).thenApply(Commands::value);
  }

  @Override
  public final CompletableFuture<Void> put(String key, ByteString value) {
    return send(Commands.put(key, value)).thenApply(r -> null);
  }
}
