package org.kvlab.consensus.multicast;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.ServerContext;
import org.kvlab.consensus.multicast.proto.CastAcked;
import org.kvlab.consensus.multicast.proto.CastLocal;
import org.kvlab.consensus.multicast.proto.CastOp;
import org.kvlab.consensus.multicast.proto.CastReply;
import org.kvlab.consensus.multicast.proto.CastSend;
import org.kvlab.consensus.raft.Raft;
import org.kvlab.consensus.raft.RaftGroup;
import org.kvlab.consensus.raft.RaftJournal;

/**
 * Atomic multicast across replicated groups (issue 33, the BaseCast idea): every group is a Raft group
 * ({@link RaftGroup}) of several replicas, and every replica runs a copy of {@link SkeenMulticast} for its group,
 * fed from the group's log ({@link CastMachine}): a local {@link #multicast}, a data or a vote received from another
 * group, and the acknowledgement of a send are operations the leader proposes; every replica applies them in log
 * order, so every replica of a group takes the same decisions (the same timestamps, the same deliveries in the same
 * order) and the group acts as one Skeen member that survives the crash of a minority of its replicas.
 *
 * <p>What the copy sends is not sent by the copy: it becomes an <em>outstanding send</em> of the replicated state,
 * which the leader sends ({@link CastSender}) to the destination group until that group has it in its log. A leader
 * answers a send only after committing it ({@link #register}'s call handler), so an acknowledgement means the data or
 * vote is durable at a majority there; the sender's leader then proposes {@link CastAcked}, which removes the
 * outstanding send at every replica. A new leader sends every outstanding send again: the receivers ignore a repeated
 * data and merge a repeated vote by maximum (what {@link SkeenMulticast} does), and ignore both for a message already
 * delivered. Since the vote a group sends is taken when its replicas apply the data, and sent only then, a leader that
 * crashes after committing a vote and before sending it loses nothing: the next leader holds the same vote, outstanding.
 *
 * <p>Delivery: every replica of a destination group calls {@link Delivery#deliver} for every message, in the order
 * Skeen's algorithm agreed, with its position in the group's delivery sequence (1, 2, ...). A replica that restarts
 * installs its last snapshot and applies its log after it again, so it delivers again the messages after that
 * snapshot, at the same positions: an application that keeps state of its deliveries gives it to the snapshots
 * ({@link AppState}) and gets it back with them. Message ids are {@code (origin group << 40) | sequence}, the sequence
 * counted in the origin group's replicated state.
 *
 * <p>Garbage: a message leaves the replicated state once it is delivered here and its outstanding sends are
 * acknowledged, except its id, which a destination remembers until the origin's watermark (carried on its data: the
 * least sequence whose data some destination has not acknowledged) passes it, to recognise late repeats.
 *
 * <p>Use from a server: construct it in {@code register} and call {@link #register} (it handles {@link Raft} and
 * {@link CastSend}; add {@link #MESSAGES} to the protocol's message types), call {@link #start} from {@code onStart};
 * the server's store holds the group's Raft journal ({@code format}, see {@link RaftJournal}).
 *
 * @param <M> the protobuf type of the messages multicast
 */
public final class ReplicatedMulticast<M extends Message> {
  /** The block's messages: add them to the protocol's {@link org.kvlab.api.MessageTypes}. */
  public static final List<Class<? extends Message>> MESSAGES = List.of(CastSend.class, CastReply.class, Raft.class);

  /**
   * The block's configuration.
   *
   * @param group this server's group (its index in {@code groups})
   * @param groups every group's replicas (e.g. {@code topology().replicasOf(0, p)} for partition p)
   * @param electionTimeout the group's Raft election timeout ({@link RaftGroup.Settings})
   * @param heartbeatTimeout the group's Raft heartbeat timeout (MicroRaft's floor is 2 s)
   * @param snapshotEvery commits between two snapshots of the replicated state
   * @param callTimeout how long a leader waits for a destination replica before it tries the next one
   * @param tick how often a replica checks whether it started or stopped leading (a new leader's re-sends start then)
   * @param metricPrefix the block's counters are {@code <prefix>.delivered}, {@code .sends}, {@code .resent},
   *     {@code .received}, {@code .repeats} and the Raft group's
   */
  public record Settings(int group, List<List<NodeId>> groups, Duration electionTimeout, Duration heartbeatTimeout,
      int snapshotEvery, Duration callTimeout, Duration tick, String metricPrefix) {
    public Settings {
      groups = groups.stream().map(List::copyOf).toList();
      Invariants.check(group >= 0 && group < groups.size(), "multicast: group %s is not one of the %s groups", group,
          groups.size());
      Invariants.check(groups.size() < (1 << (63 - CastMachine.SEQ_BITS)), "multicast: %s groups, at most %s", groups
          .size(), 1 << (63 - CastMachine.SEQ_BITS));
    }

    /**
     * Group {@code group} of {@code groups}: 500 ms elections, 2 s heartbeats, a snapshot every 1000 commits, 500 ms
     * call timeout, a 50 ms tick.
     */
    public static Settings of(int group, List<List<NodeId>> groups) {
      return new Settings(group, groups, Duration.ofMillis(500), Duration.ofSeconds(2), 1000, Duration.ofMillis(500),
          Duration.ofMillis(50), "multicast");
    }

    public Settings withSnapshotEvery(int commits) {
      return new Settings(group, groups, electionTimeout, heartbeatTimeout, commits, callTimeout, tick, metricPrefix);
    }
  }

  /** Called at every replica for every message its group delivers, in the agreed order. */
  @FunctionalInterface
  public interface Delivery<M> {
    /** {@code position}: 1 for the group's first delivery, and so on; {@code ts}: the final timestamp. */
    void deliver(long position, long id, M message, long ts);
  }

  /** The application's state of its deliveries, kept in the group's snapshots with the block's. */
  public interface AppState {
    ByteString snapshot();

    /** Replaces the application's state by a snapshot's ({@code ByteString.EMPTY} for one taken without it). */
    void install(ByteString state);
  }

  /** The outcome of a {@link #multicast}: its id once committed, or why not ({@code failure} non-null, id 0). */
  @FunctionalInterface
  public interface Outcome {
    void done(long id, RaftGroup.Failure failure);
  }

  private final ServerContext ctx;
  private final Settings settings;
  private final RaftJournal.Format<? extends Message> format;
  private final CastMachine<M> machine;
  private final CastSender sender;
  private RaftGroup<CastOp> raft;
  private boolean voteBeforeCommit; // the mutant (tests)

  /**
   * The replica of group {@code settings.group()} on the server of {@code ctx}; {@code parser} reads the messages,
   * {@code delivery} gets the delivered ones, {@code app} (null if none) puts the application's state in the
   * snapshots; the group's Raft journal goes to the server's store under {@code format}.
   */
  public ReplicatedMulticast(ServerContext ctx, Settings settings, Parser<M> parser,
      RaftJournal.Format<? extends Message> format, Delivery<M> delivery, AppState app) {
    this.ctx = ctx;
    this.settings = settings;
    this.format = format;
    this.machine = new CastMachine<>(settings.group(), parser, (position, id, m, ts) -> {
      ctx.metrics().count(settings.metricPrefix() + ".delivered");
      delivery.deliver(position, id, m, ts);
    }, app);
    this.sender = new CastSender(ctx, settings.groups(), machine, this::acknowledge, settings.callTimeout(),
        settings.metricPrefix());
  }

  /** Handles the group's Raft messages and the other groups' sends. */
  public void register(Handlers on) {
    on.message(Raft.class, (m, from) -> raft.handle(m, from));
    on.call(CastSend.class, this::onSend);
  }

  /** Starts the group's replica from its journal (call from the server's {@code onStart}). */
  public void start() {
    RaftGroup.Settings rs = new RaftGroup.Settings("multicast-" + settings.group(),
        settings.groups().get(settings.group()), settings.electionTimeout(), settings.heartbeatTimeout(),
        settings.snapshotEvery(), 256 << 10, settings.metricPrefix());
    raft = new RaftGroup<>(ctx, rs, CastOp.parser(), format, new RaftGroup.Machine<>() {
      @Override
      public void apply(long index, CastOp op) {
        machine.apply(index, op);
        sender.sync(raft.isLeader());
      }

      @Override
      public void takeSnapshot(long index, java.util.function.Consumer<ByteString> parts) {
        machine.takeSnapshot(index, parts);
      }

      @Override
      public void installSnapshot(long index, List<ByteString> parts, boolean restored) {
        machine.installSnapshot(index, parts, restored);
        sender.sync(raft.isLeader());
      }
    });
    raft.start();
    ctx.every(settings.tick(), () -> sender.sync(raft.isLeader()));
  }

  /**
   * Multicasts {@code message} to {@code groups} (this one among them or not; after {@link #start}): proposed to this
   * group's log, so this replica should lead its group ({@link #isLeader}); {@code outcome} learns the message's id once it is committed,
   * or why it was not (not the leader: nothing happened; appended: it may still commit, and then be delivered).
   */
  public void multicast(M message, Collection<Integer> groups, Outcome outcome) {
    Invariants.check(!groups.isEmpty(), "multicast: a message from group %s to no group", settings.group());
    List<Integer> dest = new ArrayList<>(new TreeSet<>(groups));
    for (int g : dest) {
      Invariants.check(g >= 0 && g < settings.groups().size(), "multicast: destination %s is not one of the %s"
          + " groups", g, settings.groups().size());
    }
    if (!raft.isLeader()) {
      outcome.done(0, new RaftGroup.Failure(false, "not the leader of group " + settings.group()));
      return;
    }
    CastOp op = CastOp.newBuilder().setMulticast(CastLocal.newBuilder().setPayload(message.toByteString())
        .addAllDest(dest)).build();
    raft.propose(op, (index, failure) -> outcome.done(failure == null ? machine.idAt(index) : 0, failure));
  }

  /** A send from another group's leader: answered once it is committed here (or refused, with a leader hint). */
  private void onSend(Request<CastSend> req) {
    CastSend s = req.body();
    int from = s.getFrom();
    if (from < 0 || from >= settings.groups().size() || from == settings.group() || s.hasData() == s.hasVote()
        || (s.hasData() && CastMachine.origin(s.getData().getId()) != from)
        || (s.hasVote() && s.getVote().getGroup() != from)) {
      req.fail("multicast: group " + settings.group() + " got a malformed send from group " + from + ". Fix: every"
          + " server must run the same protocol build and groups");
      return;
    }
    if (!raft.isLeader()) {
      req.reply(reply(false));
      return;
    }
    CastOp op = CastOp.newBuilder().setReceived(s).build();
    if (voteBeforeCommit) {
      machine.apply(0, op); // the leader acts on the input (and sends its vote) before its group committed it
      sender.sync(true);
    }
    raft.propose(op, (index, failure) -> {
      if (failure == null) {
        ctx.metrics().count(settings.metricPrefix() + ".received");
      }
      req.reply(reply(failure == null));
    });
  }

  private CastReply reply(boolean committed) {
    NodeId leader = raft.leader();
    int hint = leader == null ? -1 : settings.groups().get(settings.group()).indexOf(leader);
    return CastReply.newBuilder().setCommitted(committed).setLeader(hint + 1).build();
  }

  /** Proposes the acknowledgement of an outstanding send, which removes it at every replica once committed. */
  private void acknowledge(CastMachine.SendKey k, java.util.function.Consumer<Boolean> done) {
    if (!raft.isLeader()) {
      done.accept(false);
      return;
    }
    CastOp op = CastOp.newBuilder().setAcked(CastAcked.newBuilder().setId(k.id()).setGroup(k.group())
        .setVote(k.vote())).build();
    raft.propose(op, (index, failure) -> done.accept(failure == null));
  }

  /** Whether this replica leads its group (as far as it knows): only the leader can {@link #multicast}. */
  public boolean isLeader() {
    return raft != null && raft.isLeader();
  }

  /** The group's Raft replica (its role, its leader). */
  public RaftGroup<CastOp> raft() {
    return raft;
  }

  /** Deliveries of this group so far, as this replica applied them. */
  public long position() {
    return machine.position();
  }

  /** Data and votes ignored as repeats by this replica since it started. */
  public long repeats() {
    return machine.repeats();
  }

  /** Outstanding sends: not yet acknowledged by their destination. */
  public int outstanding() {
    return machine.outstanding().size();
  }

  /** Delivered ids still remembered to recognise late repeats. */
  public int remembered() {
    return machine.remembered();
  }

  /** Messages received and not yet delivered. */
  public int holding() {
    return machine.holding();
  }

  /**
   * The mutant for tests: a leader applies a received send to its copy (and sends the vote that makes) before its
   * group committed it, so its decisions may differ from those its followers take from the log.
   */
  void voteBeforeCommit() {
    voteBeforeCommit = true;
  }

  /** The mutant for tests: a replica that starts leading does not send again what is outstanding. */
  void noResend() {
    sender.noResend();
  }

  /** Tests: from now on this replica sends nothing (a leader crashing right after a commit). */
  void muteSends() {
    sender.mute();
  }

  /** Tests: called at every replica as it applies one of its group's multicasts, with its id and destinations. */
  void onMulticastApplied(MulticastApplied hook) {
    machine.multicastApplied = hook;
  }

  /**
   * Tests: called at every replica as it applies an operation that makes an outstanding send (before the leader
   * sends it), with the send's message id, destination group and kind.
   */
  void onSendRecorded(SendRecorded hook) {
    machine.sendRecorded = k -> hook.recorded(k.id(), k.group(), k.vote());
  }

  /** See {@link #onSendRecorded}. */
  @FunctionalInterface
  interface SendRecorded {
    void recorded(long id, int group, boolean vote);
  }

  /** See {@link #onMulticastApplied}. */
  @FunctionalInterface
  interface MulticastApplied {
    void applied(long id, List<Integer> dest, ByteString payload);
  }
}
