package org.kvlab.host;

import com.google.protobuf.Message;
import java.util.Optional;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.NodeId;

/** A call from another server, or a client request it forwarded: answered by a kit frame back. */
final class RemoteRequest extends BaseHostRequest {
  private final ProtocolHost host;
  private final KitFrame.Kind answerKind;
  private final NodeId from;
  private final KitFrame asked;
  private final Runnable whenAnswered;

  /** {@code whenAnswered} (may be null) runs as the answer leaves. */
  RemoteRequest(ProtocolHost host, KitFrame.Kind answerKind, NodeId from, KitFrame asked, int type,
      Runnable whenAnswered) {
    super(host, type, asked.body());
    this.host = host;
    this.answerKind = answerKind;
    this.from = from;
    this.asked = asked;
    this.whenAnswered = whenAnswered;
  }

  @Override
  public Optional<NodeId> from() {
    return answerKind == KitFrame.Kind.CALL_REPLY ? Optional.of(from) : Optional.empty();
  }

  @Override
  protected void deliver(Message reply, String error, boolean unknown, boolean overloaded) {
    if (whenAnswered != null) {
      whenAnswered.run();
    }
    try {
      host.sendKit(from, new KitFrame(answerKind, asked.run(), asked.seq(), host.incarnation, reply, error, unknown,
          overloaded));
    } catch (BackPressureException e) {
      host.env.metrics().count("kit.answersDropped"); // the asking server's timeout answers for it
    }
  }
}
