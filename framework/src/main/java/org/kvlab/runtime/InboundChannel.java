package org.kvlab.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.NodeId;
import org.kvlab.wire.Ack;
import org.kvlab.wire.Frame;

/**
 * The receiving end of one sender's reliable FIFO channel, beside the sending end ({@link PeerLink}): the sender's
 * incarnation, the last sequence delivered (and, under durable channels, persisted in the channel log), and the
 * coalesced acknowledgements. It outlives connections: a sender that reconnects continues where it was delivered.
 */
final class InboundChannel {
  long incarnation;
  long delivered;
  long persisted;
  boolean known;
  Channel channel;
  boolean ackDue;
  long acked; // the last sequence acknowledged to the sender (or queued to be, under durable channels)
  io.netty.util.concurrent.ScheduledFuture<?> ackTimer;

  /**
   * Message {@code seq} of type {@code t} from {@code peer} on {@code ch}: {@code parsed}, or if null its bytes
   * {@code body}. Delivers it to the node once, in order; returns why the connection must close, or null.
   */
  String deliver(Node node, NodeId peer, Channel ch, long seq, int t, Message parsed, ByteString body) {
    if (channel != ch) {
      return null; // superseded connection
    }
    if (!known) {
      known = true;
      delivered = seq - 1;
    }
    if (seq <= delivered) {
      return null; // duplicate of a resend: already delivered
    }
    if (seq != delivered + 1) {
      return "gap in channel from " + peer + ": expected message " + (delivered + 1) + ", got " + seq;
    }
    delivered = seq;
    ackDue = true;
    return node.onData(peer, t, parsed, body) ? null : "undeliverable message from " + peer;
  }

  /** The end of a read batch on {@code ch}: persists the delivered marker (durable channels) and schedules the ack. */
  void readComplete(Node node, NodeId peer, Channel ch) {
    if (node.channelLog != null && delivered > persisted) {
      // Durable channels: one marker per read batch, written after the handlers' writes (so a crash
      // keeps the marker only with them) and before the ack is queued behind the group fsync (so the
      // sender drops a message only once the marker covering it is durable).
      node.channelLog.delivered(peer.toString(), incarnation, delivered);
      node.sync.onWrite();
      persisted = delivered;
    }
    if (ackDue && channel == ch) {
      if (delivered - acked >= node.ackBatch) {
        sendAck(node);
      } else if (ackTimer == null) {
        ackTimer = node.loop.schedule(() -> {
          ackTimer = null;
          sendAck(node);
        }, Node.ACK_DELAY_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }

  /**
   * Acknowledges everything delivered on the sender's current connection. Under durable channels the
   * delivered marker covering it was written at the end of the read batch (every read batch ends before
   * this runs), and the ack waits for the fsync that makes it durable.
   */
  private void sendAck(Node node) {
    Channel ch = channel;
    if (!ackDue || ch == null) {
      return;
    }
    // Durable channels acknowledge only what the delivered marker covers (all of it, normally).
    long upTo = node.channelLog == null ? delivered : persisted;
    ackDue = upTo < delivered;
    acked = upTo;
    Frame ack = Frame.newBuilder().setAck(Ack.newBuilder().setSeq(upTo)).build();
    if (node.sync == null) {
      ch.write(ack, ch.voidPromise());
      node.flushSoon(ch);
    } else {
      node.sync.afterSync(() -> {
        ch.write(ack, ch.voidPromise());
        node.flushSoon(ch);
      });
    }
  }
}
