package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;

/**
 * Everything a protocol client session may touch. All completions of {@link #call} run on the
 * session's own thread, the same one that runs the session's operations, so session state needs no
 * locks.
 */
public interface ClientContext {
  /** The datacenter this session is attached to (clients are sticky, as in the seed's model). */
  int dc();

  Topology topology();

  Params params();

  /**
   * Sends {@code request} to server {@code server} and completes with its reply, which must be of type
   * {@code replyType}; completes exceptionally with {@link OperationException} on a server error, an
   * unreachable server or a reply of another type.
   */
  <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType);

  Clock clock();

  Random random();

  Logger log();
}
