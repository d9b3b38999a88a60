package org.kvlab.sim;

import com.google.protobuf.Message;
import java.util.List;
import org.kvlab.api.NodeId;
import org.kvlab.host.KitFrame;
import org.kvlab.store.Durability;

/**
 * The simulated network: per-datacenter-pair latency from the spec's {@link NetworkModel}, partitions that hold
 * messages until they heal, slow servers' extra delay, and one reliable FIFO link per pair of servers (a crashed
 * server's messages are held until its restart; a crashed sender's undelivered ones are lost under durability
 * {@code none}). Server messages and the kit's frames cross it; clients' requests and replies use its delays.
 */
final class SimNetwork {
  private final Simulation sim;
  private final long[][] lastDelivery;
  /** The partitions and slow nodes among the run's faults, in their order: every message asks which delay it. */
  private final Fault.Partition[] partitions;
  private final Fault.Slow[] slows;

  SimNetwork(Simulation sim, List<Fault> faults) {
    this.sim = sim;
    int n = sim.spec.topology().size();
    this.lastDelivery = new long[n][n];
    this.partitions = faults.stream().filter(f -> f instanceof Fault.Partition).toArray(Fault.Partition[]::new);
    this.slows = faults.stream().filter(f -> f instanceof Fault.Slow).toArray(Fault.Slow[]::new);
  }


  private int index(NodeId id) {
    return sim.spec.topology().indexOf(id);
  }

  long wanDelay(int fromDc, int toDc, long sendTime, long latency) {
    long t = sendTime + latency;
    boolean moved = true;
    while (moved) {
      moved = false;
      for (Fault.Partition p : partitions) {
        if (fromDc != toDc
            && ((p.dcA() == fromDc && p.dcB() == toDc) || (p.dcA() == toDc && p.dcB() == fromDc))
            && p.startMicros() <= t && sendTime < p.endMicros() && t > p.startMicros() - latency) {
          long released = p.endMicros() + latency;
          if (released > t) {
            t = released;
            moved = true;
          }
        }
      }
    }
    return t;
  }

  /** Extra delay of a message a slow server {@code from} sends at {@code time}. */
  long slowExtra(NodeId from, long time) {
    long extra = 0;
    for (Fault.Slow s : slows) {
      if (s.node().equals(from) && s.startMicros() <= time && time < s.endMicros()) {
        extra += s.delayMicros();
      }
    }
    return extra;
  }

  void sendServerMessage(SimNode from, NodeId to, Message message) {
    sim.types.idOf(message.getClass()); // same rule as the real runtime: the type must be registered
    sendOnLink(from, to, message, message);
  }

  /**
   * Sends {@code payload} (a protocol message, or a kit frame of the framework) from {@code from} to {@code to} on
   * their FIFO link, with the network's faults; the sim.trace shows it as {@code shown}.
   */
  void sendOnLink(SimNode from, NodeId to, Object payload, Message shown) {
    SimNode target = sim.nodes.get(to);
    if (target == null || to.equals(from.id)) {
      throw new IllegalArgumentException("server " + from.id + " has no channel to " + to);
    }
    Object message = payload;
    if (sim.control != null) { // controlled: the message waits at its link's tail until it is chosen
      int senderIncarnation = from.incarnation;
      long sent = sim.now;
      long traceId = sim.trace.enabled() ? sim.trace.send(sim.now, from.id.toString(), to.toString(), shown) : -1;
      sim.control.message(from.id.toString(), to.toString(), shown,
          () -> take(from, senderIncarnation, target, message, sent, traceId), () -> !target.down);
      return;
    }
    long cost = sim.spec.network().sendMicros();
    long departure = cost > 0 ? from.occupy(cost) : sim.now; // leaves when the sender's CPU has sent it
    departure = Math.max(departure, from.sendFloor()); // and after what its handler charged before sending
    long latency = sim.spec.network().sample(from.id, to, sim.random) + slowExtra(from.id, sim.now);
    long t = wanDelay(from.id.dc(), to.dc(), departure, latency);
    int a = index(from.id);
    int b = index(to);
    t = Math.max(t, lastDelivery[a][b]); // FIFO per link
    lastDelivery[a][b] = t;
    long sent = sim.now;
    int senderIncarnation = from.incarnation;
    long traceId = sim.trace.enabled() ? sim.trace.send(sim.now, from.id.toString(), to.toString(), shown) : -1;
    sim.at(t, () -> deliver(from, senderIncarnation, target, message, sent, traceId));
  }

  private void deliver(SimNode from, int senderIncarnation, SimNode target, Object message, long sent, long traceId) {
    long cost = sim.spec.network().receiveMicros();
    if (cost > 0 && !target.down) { // the receiver takes in one message at a time (FIFO per link is kept)
      sim.at(target.occupy(cost), () -> take(from, senderIncarnation, target, message, sent, traceId));
      return;
    }
    take(from, senderIncarnation, target, message, sent, traceId);
  }

  private void take(SimNode from, int senderIncarnation, SimNode target, Object message, long sent, long traceId) {
    if (from.incarnation != senderIncarnation && sim.spec.durability() == Durability.NONE) {
      sim.trace.drop(traceId, sim.now, "sender crashed before delivery (durability none)");
      return; // the crashed sender's in-memory queue is gone
    }
    if (target.queues() && !target.down) { // the service-time model: handled when the server's CPU has served it
      target.serve(message instanceof KitFrame kit ? kit.body() : (Message) message, () -> handle(from, senderIncarnation, target, message, sent, traceId));
      return;
    }
    handle(from, senderIncarnation, target, message, sent, traceId);
  }

  private void handle(SimNode from, int senderIncarnation, SimNode target, Object message, long sent, long traceId) {
    if (target.down) { // down (or crashed while the message waited for its service): it waits for the restart
      target.heldWhileDown.add(() -> take(from, senderIncarnation, target, message, sent, traceId));
      return;
    }
    sim.deliveries++;
    sim.trace.deliver(traceId, sim.now);
    if (message instanceof KitFrame kit) {
      target.onKit(kit, from.id);
    } else {
      target.onMessage((Message) message, from.id);
    }
  }
}
