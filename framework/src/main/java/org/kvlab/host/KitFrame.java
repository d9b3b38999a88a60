package org.kvlab.host;

import com.google.protobuf.Message;

/**
 * A framework-owned message between two servers' hosts: a call or its answer, a forwarded client request or its
 * answer. The runtime carries it on the peer channel as {@code org.kvlab.wire.Kit} (a Data message of type
 * {@link #WIRE_TYPE}); the simulator carries the object through its network model like any message.
 *
 * @param kind what it is
 * @param run the caller's run tag (its incarnation in the simulator): an answer is matched only by the run that
 *     asked
 * @param seq the caller's number for the call or forward
 * @param incarnation the sender's incarnation
 * @param body the request, or the reply; null for an error answer
 * @param error non-null: the answer is an error
 * @param unknown with error: the outcome is unknown ({@code Request.unknown})
 * @param overloaded with error: refused for back-pressure
 */
public record KitFrame(Kind kind, long run, long seq, long incarnation, Message body, String error, boolean unknown,
    boolean overloaded) {
  /** The Data type the runtime's peer channels carry kit frames as (protocol types are small positions). */
  public static final int WIRE_TYPE = Integer.MAX_VALUE;

  public enum Kind { CALL, CALL_REPLY, FORWARD, FORWARD_REPLY }

  /** Whether this answers a call or a forward. */
  public boolean isAnswer() {
    return kind == Kind.CALL_REPLY || kind == Kind.FORWARD_REPLY;
  }
}
