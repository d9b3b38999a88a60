package org.kvlab.consensus.multicast;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenEntry;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.consensus.multicast.proto.SkeenVotes;

/**
 * Skeen's atomic multicast (Birman and Joseph 1987, after Skeen), one member per group: {@link #multicast} sends a
 * message to some groups; every destination proposes a timestamp from its logical clock ({@code ++clock}) and sends
 * it to the other destinations; the final timestamp is the largest proposal; a group delivers a message once its
 * final timestamp is known and is below the proposal of every message it still waits for, in (timestamp, id) order.
 * So any two groups deliver the messages they both receive in the same order, and the order of all deliveries is
 * acyclic. Delivery is a callback, run inside the event that made the message deliverable.
 *
 * <p>Driven from the server's context: the server registers the two messages ({@link #MESSAGES}, handlers by
 * {@link #register}) and says how a message reaches a group ({@link Transport}); the block reads no time and no
 * randomness, so every decision is a function of its inputs ({@link #multicast}, {@link #onData}, {@link #onVote},
 * {@link #advanceClock}) and its state.
 *
 * <p>Faults: channels may delay and reorder across pairs of groups (each pair's channel is FIFO and reliable, as the
 * SPI's are); a slow group delays the messages it is a destination of and those ordered after them at the groups
 * they share, nothing else. A member that crashes and restarts keeps the guarantees if its server saves
 * {@link #state()} with the messages of the same event and gives it back to {@link #restore} on restart (in the
 * kit's slot, {@link org.kvlab.api.ServerContext#slot}, set at the end of every event: the host writes it before the
 * event's messages leave). A group whose member stays down blocks the
 * messages addressed to it, and the ones ordered after them: one member per group tolerates no permanent crash.
 *
 * <p>Replicated groups ({@link ReplicatedMulticast}, issue 33's BaseCast): because the block's decisions depend only
 * on its inputs, a group replicated by Raft runs one copy per replica and feeds each copy the same inputs in the same
 * order from the group's log. A new leader there re-sends what is not acknowledged, so this block takes repeats: a
 * {@code SkeenData} of a message it still holds is ignored ({@link #onData}), a vote merges by maximum and a vote for
 * a message whose final timestamp is known is ignored; the replicated block itself filters the repeats of messages
 * already delivered ({@link #holds}).
 *
 * @param <M> the protobuf type of the messages multicast
 */
public final class SkeenMulticast<M extends Message> {
  /** The block's messages: add them to the protocol's {@link org.kvlab.api.MessageTypes}. */
  public static final List<Class<? extends Message>> MESSAGES = List.of(SkeenData.class, SkeenVote.class);

  /** How one of the block's messages reaches a group (one server per group: that server). */
  @FunctionalInterface
  public interface Transport {
    void send(int group, Message message);
  }

  /** Called for every message this group delivers, in the agreed order, with its final timestamp. */
  @FunctionalInterface
  public interface Delivery<M> {
    void deliver(long id, M message, long ts);
  }

  private static final class Entry<M> {
    final long id;
    final int[] dest;
    final M message;
    final ByteString payload;
    long ts;
    boolean fin;

    Entry(long id, int[] dest, M message, ByteString payload, long ts) {
      this.id = id;
      this.dest = dest;
      this.message = message;
      this.payload = payload;
      this.ts = ts;
    }
  }

  private static final Comparator<Entry<?>> ORDER = Comparator.<Entry<?>>comparingLong(e -> e.ts)
      .thenComparingLong(e -> e.id);

  private final int group;
  private final Parser<M> parser;
  private final Transport transport;
  private final Delivery<M> delivery;
  private boolean deliverBeforeFinal; // the mutant (tests): a tentative timestamp taken as final

  private long clock;
  private final Map<Long, Entry<M>> pending = new TreeMap<>();       // received, not yet delivered
  private final Map<Long, Map<Integer, Long>> votes = new HashMap<>(); // proposals per group, until final

  /**
   * The member of {@code group} (e.g. the server's partition). {@code parser} reads the messages of other groups,
   * {@code transport} sends the block's messages, {@code delivery} receives the delivered ones.
   */
  public SkeenMulticast(int group, Parser<M> parser, Transport transport, Delivery<M> delivery) {
    this.group = group;
    this.parser = parser;
    this.transport = transport;
    this.delivery = delivery;
  }

  /** Handles the block's messages, each inside {@code turn} (e.g. a server's: run it, then save the state). */
  public void register(Handlers on, Consumer<Runnable> turn) {
    on.message(SkeenData.class, (m, from) -> turn.accept(() -> onData(m)));
    on.message(SkeenVote.class, (m, from) -> turn.accept(() -> onVote(m)));
  }

  /**
   * Multicasts {@code message} to {@code groups} (this group among them or not). {@code id} names it everywhere and
   * breaks ties between equal timestamps: unique across all groups, e.g. (origin group &lt;&lt; 40) | sequence.
   */
  public void multicast(long id, M message, Collection<Integer> groups) {
    Invariants.check(!groups.isEmpty(), "skeen: message %s multicast to no group", id);
    int[] dest = new TreeSet<>(groups).stream().mapToInt(Integer::intValue).toArray();
    ByteString payload = message.toByteString();
    SkeenData data = null;
    boolean local = false;
    for (int g : dest) {
      if (g == group) {
        local = true;
      } else {
        if (data == null) {
          data = SkeenData.newBuilder().setId(id).addAllDest(groups(dest)).setPayload(payload).build();
        }
        transport.send(g, data);
      }
    }
    if (local) {
      receive(id, dest, message, payload);
    }
  }

  /**
   * A message multicast by another group, to this one among others. A repeat of a message this group still holds
   * ({@link #holds}) is ignored (a replicated group's new leader sends again what it does not know to be received).
   */
  public void onData(SkeenData d) {
    if (pending.containsKey(d.getId())) {
      return;
    }
    receive(d.getId(), d.getDestList().stream().mapToInt(Integer::intValue).toArray(), parse(d.getId(),
        d.getPayload()), d.getPayload());
  }

  /** Another destination's proposal. */
  public void onVote(SkeenVote v) {
    vote(v.getId(), v.getGroup(), v.getTs());
  }

  /**
   * Raises the logical clock to at least {@code ts}: this group's proposals from now on exceed it (a protocol that
   * also orders by other means, as CaMu's periodic broadcast, keeps the two timestamp spaces in step this way).
   */
  public void advanceClock(long ts) {
    clock = Math.max(clock, ts);
    deliverReady();
  }

  /**
   * The least timestamp this group can still deliver: min(clock + 1, the
   * timestamp of every message received and not delivered). Every message delivered from now on has a timestamp at
   * least this (a future proposal is above the clock; a pending message's final timestamp is at least its own).
   */
  public long floor() {
    long m = clock + 1;
    for (Entry<M> e : pending.values()) {
      m = Math.min(m, e.ts);
    }
    return m;
  }

  /** Whether message {@code id} is received and not yet delivered here. */
  public boolean holds(long id) {
    return pending.containsKey(id);
  }

  /** The messages received and not yet delivered, in id order. */
  public List<M> undelivered() {
    List<M> out = new ArrayList<>(pending.size());
    for (Entry<M> e : pending.values()) {
      out.add(e.message);
    }
    return out;
  }

  private void receive(long id, int[] dest, M message, ByteString payload) {
    Invariants.check(!pending.containsKey(id), "skeen: message %s received twice by group %s", id, group);
    clock++;
    pending.put(id, new Entry<>(id, dest, message, payload, clock));
    SkeenVote v = null;
    for (int g : dest) {
      if (g != group) {
        if (v == null) {
          v = SkeenVote.newBuilder().setId(id).setGroup(group).setTs(clock).build();
        }
        transport.send(g, v);
      }
    }
    vote(id, group, clock);
  }

  private void vote(long id, int from, long ts) {
    Entry<M> e = pending.get(id);
    if (e != null && e.fin) {
      return; // a repeat of a vote the final timestamp already counts (replicated groups re-send)
    }
    votes.computeIfAbsent(id, x -> new HashMap<>()).merge(from, ts, Math::max);
    if (e == null) {
      return; // the message itself has not arrived yet: the vote waits
    }
    Map<Integer, Long> got = votes.get(id);
    long fin = 0;
    for (int g : e.dest) {
      Long v = got.get(g);
      if (v == null) {
        return;
      }
      fin = Math.max(fin, v);
    }
    Invariants.check(fin >= e.ts, "skeen: final timestamp %s of message %s below group %s's proposal %s", fin, id,
        group, e.ts);
    e.ts = fin;
    e.fin = true;
    clock = Math.max(clock, fin + 1);
    votes.remove(id);
    deliverReady();
  }

  /** Delivers every final message whose timestamp is below the clock and below every message not yet final. */
  private void deliverReady() {
    long bound = clock;
    for (Entry<M> e : pending.values()) {
      if (!e.fin && !deliverBeforeFinal) {
        bound = Math.min(bound, e.ts);
      }
    }
    List<Entry<M>> ready = new ArrayList<>();
    for (Iterator<Entry<M>> it = pending.values().iterator(); it.hasNext(); ) {
      Entry<M> e = it.next();
      if ((e.fin || deliverBeforeFinal) && e.ts < bound) {
        ready.add(e);
        it.remove();
      }
    }
    ready.sort(ORDER);
    for (Entry<M> e : ready) {
      delivery.deliver(e.id, e.message, e.ts);
    }
  }

  /** The mutant for tests: delivers on the tentative timestamp, before the other destinations' proposals are in. */
  void deliverBeforeFinal() {
    deliverBeforeFinal = true;
  }

  // ------------------------------------------------------------------------------------------------ durable state

  /** Everything the block must find again after a crash; save it with the messages of the same event. */
  public SkeenState state() {
    SkeenState.Builder s = SkeenState.newBuilder().setClock(clock);
    for (Entry<M> e : pending.values()) {
      s.addPending(SkeenEntry.newBuilder().setId(e.id).addAllDest(groups(e.dest)).setPayload(e.payload).setTs(e.ts)
          .setFin(e.fin));
    }
    votes.forEach((id, v) -> s.addVotes(SkeenVotes.newBuilder().setId(id).putAllVotes(v)));
    return s.build();
  }

  /** Restores the state {@link #state()} saved (on restart, before any other input). */
  public void restore(SkeenState s) {
    clock = s.getClock();
    pending.clear();
    votes.clear();
    for (SkeenEntry e : s.getPendingList()) {
      M message = parse(e.getId(), e.getPayload());
      Entry<M> entry = new Entry<>(e.getId(), e.getDestList().stream().mapToInt(Integer::intValue).toArray(), message,
          e.getPayload(), e.getTs());
      entry.fin = e.getFin();
      pending.put(e.getId(), entry);
    }
    for (SkeenVotes v : s.getVotesList()) {
      votes.put(v.getId(), new HashMap<>(v.getVotesMap()));
    }
  }

  private M parse(long id, ByteString payload) {
    try {
      return parser.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("skeen: group " + group + " cannot read message " + id + " (" + e.getMessage()
          + "). Fix: every group must run the same protocol build", e);
    }
  }

  private static List<Integer> groups(int[] dest) {
    List<Integer> out = new ArrayList<>(dest.length);
    for (int g : dest) {
      out.add(g);
    }
    return out;
  }
}
