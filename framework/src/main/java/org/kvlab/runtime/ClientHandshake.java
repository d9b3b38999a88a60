package org.kvlab.runtime;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.OperationException;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;
import org.kvlab.wire.Auth;
import org.kvlab.wire.Challenge;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;

/**
 * The client's side of the challenge-response, used when the cluster has a client token
 * ({@code security.clientToken}): checks the server's proof and answers with the client's.
 */
final class ClientHandshake {
  private ClientHandshake() {}

  static void answer(ChannelHandlerContext ctx, ClusterConfig config, ServerSpec spec, Hello hello, Challenge challenge,
      CompletableFuture<Channel> opened) {
    ClusterSecret key = config.security().clientKey();
    String refusal = null;
    if (key == null) {
      refusal = "server " + spec.id() + " at " + spec.host() + ":" + spec.port() + " requires a client token, and "
          + config.source() + " has none. Fix: set security.clientToken to the cluster's token";
    } else if (!challenge.getNode().equals(spec.id().toString())) {
      refusal = "the server at " + spec.host() + ":" + spec.port() + " is " + Wire.printable(challenge.getNode())
          + ", not " + spec.id() + ". Fix: correct the servers list of " + config.source();
    } else if (!Handshake.checkServer(key, hello, spec.id().toString(), challenge.getNonce(), challenge.getProof())) {
      refusal = "server " + spec.id() + " at " + spec.host() + ":" + spec.port() + " does not know this client token: "
          + "it belongs to another cluster or uses another token. Fix: use the token of the cluster's file";
    }
    if (refusal != null) {
      opened.completeExceptionally(new OperationException(refusal));
      ctx.writeAndFlush(Frame.newBuilder().setAuth(Auth.newBuilder().setError("the client gives up: "
          + (key == null ? "it has no client token" : "the server did not prove the client token"))).build())
          .addListener(f -> ctx.close());
      return;
    }
    ctx.writeAndFlush(Frame.newBuilder().setAuth(Auth.newBuilder().setProof(
        Handshake.connectorProof(key, hello, spec.id().toString(), challenge.getNonce()))).build());
  }
}
