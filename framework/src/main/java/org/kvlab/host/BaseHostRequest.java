package org.kvlab.host;

import com.google.protobuf.Message;

/**
 * A {@link HostRequest} that claims its answer with its host and hands it to {@link #deliver}: the simulator's
 * client requests and the host's own requests from other servers (calls, forwarded requests). The runtime's client
 * request implements {@link HostRequest} itself, as the frame of its own reply.
 */
public abstract class BaseHostRequest implements HostRequest {
  private final ProtocolHost host;
  private final int type;
  private final Message body;
  private long answer;

  protected BaseHostRequest(ProtocolHost host, int type, Message body) {
    this.host = host;
    this.type = type;
    this.body = body;
  }

  /** Sends the answer on its way (claimed already): a reply, or an error with its outcome. */
  protected abstract void deliver(Message reply, String error, boolean unknown, boolean overloaded);

  @Override
  public final Message body() {
    return body;
  }

  @Override
  public final int type() {
    return type;
  }

  @Override
  public final long answerRecord() {
    return answer;
  }

  @Override
  public final void answerRecord(long record) {
    answer = record;
  }

  @Override
  public final void reply(Message reply) {
    host.checkType(reply);
    host.claim(this, ProtocolHost.REPLY);
    deliver(reply, null, false, false);
  }

  @Override
  public final void fail(String reason) {
    host.claim(this, ProtocolHost.FAIL);
    deliver(null, reason == null ? "null" : reason, false, false);
  }

  @Override
  public final void unknown(String reason) {
    host.claim(this, ProtocolHost.UNKNOWN);
    deliver(null, reason == null ? "null" : reason, true, false);
  }

  @Override
  public final void refuseOverloaded(String reason) {
    host.claim(this, ProtocolHost.FAIL);
    deliver(null, reason == null ? "null" : reason, false, true);
  }
}
