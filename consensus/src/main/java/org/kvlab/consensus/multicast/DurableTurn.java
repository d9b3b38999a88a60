package org.kvlab.consensus.multicast;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;

/**
 * Runs one event of a server (a handler, a timer) as a unit for crash recovery: the messages it sends are held
 * until it ends, then {@code save} writes the server's state to its store, and only then do the messages leave.
 * Under durability sync the runtime makes a message durable only after the writes before it and acks an incoming
 * message only after its handler's writes are synced, so a restarted server resumes from a state that covers every
 * message it ever sent and every message it consumed; the simulator crashes between events, which is the same. An
 * event that throws sends nothing (its state was not saved).
 *
 * <p>A stand-in for the kit's durable protocol-state slot (issue 30), which writes a typed state atomically with the
 * event's messages: with it, this class and the server's own save and restore go away.
 */
public final class DurableTurn {
  /** One message held until its event's state is saved. */
  public record Outgoing(NodeId to, Message message) {}

  private final BiConsumer<NodeId, Message> send;
  private final Runnable save;
  private List<Outgoing> held;

  /** {@code send} is the server's own send; {@code save} writes its state (nothing, if it keeps none). */
  public DurableTurn(BiConsumer<NodeId, Message> send, Runnable save) {
    this.send = send;
    this.save = save;
  }

  /** Runs {@code event}, saves the state, then sends what it sent. */
  public void run(Runnable event) {
    Invariants.check(held == null, "a durable turn started inside another (an event handler called another)");
    held = new ArrayList<>();
    List<Outgoing> out;
    try {
      event.run();
      save.run();
      out = held;
    } finally {
      held = null;
    }
    for (Outgoing m : out) {
      send.accept(m.to(), m.message());
    }
  }

  /** Sends {@code message} when the running turn's state is saved (at once outside a turn). */
  public void send(NodeId to, Message message) {
    if (held != null) {
      held.add(new Outgoing(to, message));
    } else {
      send.accept(to, message);
    }
  }
}
