package org.kvlab.protocols.dynastar;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.api.Handlers;
import org.kvlab.api.NodeId;
import org.kvlab.api.ServerContext;
import org.kvlab.consensus.multicast.ReplicatedMulticast;
import org.kvlab.consensus.raft.JournalRecord;
import org.kvlab.consensus.raft.RaftJournal;

/**
 * One replica of a replicated DynaStar partition or of the replicated oracle ({@link Groups}): the group is a Raft
 * group of {@link ReplicatedMulticast}, whose leader takes part in Skeen's multicast for the group and replicates its
 * decisions; every replica hands the group's deliveries, in the group's order, to its {@link Machine}, a
 * deterministic state machine, so the replicas agree on every execution, lend, return and plan.
 *
 * <p>Lends, returns and moves between replicated partitions travel as multicasts too (decided;
 * docs/protocols.md#dynastar): the machine {@link #post}s one to its <em>outbox</em> (replicated state), and the group's leader multicasts it to
 * the receiving group and its own; its delivery at its own group removes it from the outbox at every replica, its
 * delivery at the receiver makes it durable and ordered there. A new leader multicasts the whole outbox again, so a
 * receiver may deliver a repeat: every such message carries its outbox number and the sender's lowest outstanding
 * number, and the receiver takes only the first copy ({@link Dedup}). Point-to-point messages would need their own
 * acknowledgements, re-sends and duplicate filter, and a receiver whose leader changed would lose what its old leader
 * had received but not replicated; the multicast gives all of that, at the cost of a multicast's latency per lend.
 */
final class GroupReplica {
  /** The reserved key of the group's Raft journal in the server's store (user keys cannot start with NUL). */
  static final String JOURNAL = "\u0000dynastar.raft";
  static final RaftJournal.Format<Record> FORMAT = RaftJournal.format(JOURNAL,
      (seq, r) -> Record.newBuilder().setValue(r.toByteString()).setVer(seq).build(), GroupReplica::journal,
      Record::getVer);
  /** How often the leader looks at its outbox (it also looks right after the machine posts something). */
  static final Duration TICK = Duration.ofMillis(50);
  /** Ticks after which the leader multicasts an outbox message again if it is still not delivered here. */
  static final int RESEND_TICKS = 20;

  /** The group's deterministic state machine. */
  interface Machine {
    /** Delivery number {@code position} of the group: message {@code id}, its final timestamp in {@code c.ts}. */
    void delivered(long position, long id, Cast c);

    ByteString snapshot();

    void install(ByteString state);
  }

  /** Tests: sees every delivery at every replica. */
  interface Observer {
    void delivered(int group, NodeId replica, long position, long id, Cast c);
  }

  private final ServerContext ctx;
  private final int me;
  private final ReplicatedMulticast<Cast> cast;
  private final TreeMap<Long, Cast> outbox = new TreeMap<>();
  private long out;
  private final Dedup<Integer> groups = new Dedup<>();
  private final Map<Long, Long> inflight = new HashMap<>(); // volatile: outbox numbers multicast, at which tick
  private long ticks;
  private boolean leading;
  private boolean flushing;
  Observer observer;

  GroupReplica(ServerContext ctx, Machine machine) {
    this.ctx = ctx;
    this.me = ctx.self().partition();
    ReplicatedMulticast.Settings settings = ReplicatedMulticast.Settings.of(me, Groups.all(ctx.topology()));
    this.cast = new ReplicatedMulticast<>(ctx, settings, Cast.parser(), FORMAT, (position, id, c, ts) -> {
      Cast d = c.toBuilder().setTs(ts).build();
      if (observer != null) {
        observer.delivered(me, ctx.self(), position, id, d);
      }
      machine.delivered(position, id, d);
    }, new ReplicatedMulticast.AppState() {
      @Override
      public ByteString snapshot() {
        return machine.snapshot();
      }

      @Override
      public void install(ByteString state) {
        machine.install(state);
      }
    });
  }

  private static JournalRecord journal(Record r) {
    try {
      return JournalRecord.parseFrom(r.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("dynastar: a Raft journal record is unreadable (" + e.getMessage() + "). Fix:"
          + " start from an empty data directory", e);
    }
  }

  void register(Handlers on) {
    cast.register(on);
  }

  void start() {
    cast.start();
    ctx.every(TICK, () -> {
      ticks++;
      flush();
    });
  }

  boolean isLeader() {
    return cast.isLeader();
  }

  /** The leader's index in the group + 1, 0 if unknown (a client's hint). */
  int leaderHint() {
    NodeId l = cast.raft() == null ? null : cast.raft().leader();
    return l == null ? 0 : Groups.of(ctx.topology(), me).indexOf(l) + 1;
  }

  /** Multicasts {@code c} from this group (its leader) to {@code dest}. */
  void multicast(Cast c, Collection<Integer> dest, ReplicatedMulticast.Outcome outcome) {
    cast.multicast(c, dest, outcome);
  }

  // ------------------------------------------------------------------------------------------------ outbox

  /** Machine: sends {@code c} (a lend, return or move) to group {@code to}, through the outbox. */
  void post(int to, Cast.Builder c) {
    out++;
    outbox.put(out, c.setFrom(me).setTo(to).setOut(out).build());
    if (!flushing && cast.isLeader()) {
      flushing = true; // once the delivery that posted it is over
      ctx.after(Duration.ZERO, () -> {
        flushing = false;
        flush();
      });
    }
  }

  /**
   * Machine, on delivering a lend, return or move: whether to act on it. This group's own (its delivery here removes
   * it from the outbox) and repeats are not.
   */
  boolean accept(Cast c) {
    if (c.getFrom() == me) {
      outbox.remove(c.getOut());
      inflight.remove(c.getOut());
      return false;
    }
    return groups.fresh(c.getFrom(), c.getOut(), c.getLow());
  }

  /**
   * Leader: multicasts what the outbox holds and this leader has not multicast, or multicast {@value #RESEND_TICKS}
   * ticks ago and still holds (its multicast may have been lost with a leader change elsewhere); a new leader
   * multicasts it all. Receivers drop the repeats.
   */
  private void flush() {
    boolean now = cast.isLeader();
    if (now != leading) {
      leading = now;
      inflight.clear();
    }
    if (!now || outbox.isEmpty()) {
      return;
    }
    long low = outbox.firstKey();
    for (Map.Entry<Long, Cast> e : outbox.entrySet()) {
      long n = e.getKey();
      Long at = inflight.get(n);
      if (at == null || ticks - at >= RESEND_TICKS) {
        inflight.put(n, ticks);
        Cast c = e.getValue();
        cast.multicast(c.toBuilder().setLow(low).build(), List.of(me, c.getTo()), (id, failure) -> {
          if (failure != null) {
            inflight.remove(n); // tried again at the next tick (if it committed after all, the receiver drops it)
          }
        });
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ state

  /** Adds the outbox and the groups' numbers seen to a snapshot. */
  void save(ReplicaState.Builder s) {
    s.putAllOutbox(outbox).setOut(out).putAllGroups(groups.save());
  }

  /** Replaces the outbox and the groups' numbers seen by a snapshot's. */
  void load(ReplicaState s) {
    outbox.clear();
    outbox.putAll(s.getOutboxMap());
    out = s.getOut();
    groups.load(s.getGroupsMap());
    inflight.clear();
  }

  /** Outstanding lends, returns and moves (tests: quiescence). */
  int outstanding() {
    return outbox.size();
  }

  /** Deliveries applied at this replica. */
  long position() {
    return cast.position();
  }
}
