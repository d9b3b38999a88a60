package org.kvlab.host;

import com.google.protobuf.Message;
import org.kvlab.api.Request;

/**
 * A request as a {@link ProtocolHost} runs it: a client's (each driver has its own), a forwarded one or a call from
 * another server (the host's own). Its answer methods call {@link ProtocolHost#claim} first, which keeps the first
 * answer's site on the request in two fields, so "answered twice" can name both sites without a stack walk.
 */
public interface HostRequest extends Request<Message> {
  /** The request's wire type (its position in the protocol's message list). */
  int type();

  /** The first answer and its site, as {@link ProtocolHost#claim} recorded them in one number; 0 while unanswered. */
  long answerRecord();

  /** Records the first answer (called by {@link ProtocolHost#claim} only). */
  void answerRecord(long record);

  /** Refuses the request for back-pressure (a definite failure that the client sees as overloaded). */
  void refuseOverloaded(String reason);

  @Override
  default boolean answered() {
    return answerRecord() != 0;
  }
}
