package org.kvlab.consensus.raft;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.microraft.Ordered;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.NotLeaderException;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.persistence.RestoredRaftState;
import io.microraft.report.RaftNodeReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.ServerContext;

/**
 * A server's replica of a Raft group (MicroRaft underneath): the group's members agree on one sequence of the
 * operations their leader is given ({@link #propose}), and each member applies them in that order ({@link
 * Machine#apply}). MicroRaft runs on the server's event loop, fed with its context's timers, clock, randomness,
 * channels and store (see {@link RaftDriver}); its persistent state (term, vote, log, snapshots) is a journal in the
 * server's store ({@link RaftJournal}), so a replica that crashes restarts with what it acknowledged.
 *
 * <p>Snapshots: every {@link Settings#snapshotEvery} commits a replica asks its machine for its state as parts
 * ({@link Machine#takeSnapshot}), and a replica too far behind the leader's log installs the leader's ({@link
 * Machine#installSnapshot}). The parts of a replica's own snapshot are written to the journal after the snapshot's
 * turn, {@link Settings#snapshotWriteBytes} a turn (see {@link RaftJournal}).
 *
 * <p>Leader readiness: a new leader first commits an entry of its own term (MicroRaft's new-term operation), which
 * commits every entry of earlier terms; once it has applied that entry, its state holds every committed operation
 * ({@link #isReadyLeader}).
 *
 * <p>The watchdog ({@link RaftWatchdog}) rebuilds the node from the journal when it shows no life for longer than
 * the elections of a healthy follower take.
 *
 * @param <T> the operations, protobuf messages of the application
 */
public final class RaftGroup<T extends Message> {
  /** Between two turns that write a snapshot's held chunks (see {@link #writeSnapshot}). */
  private static final Duration SNAPSHOT_WRITE_PERIOD = Duration.ofMillis(1);

  /**
   * The group's configuration.
   *
   * @param groupId names the group in its messages (a message for another group is dropped)
   * @param members the group's servers, this one among them
   * @param electionTimeout MicroRaft's leader election timeout
   * @param heartbeatTimeout how long followers wait for the leader's heartbeats (MicroRaft's floor is 2 s)
   * @param snapshotEvery commits between two snapshots
   * @param snapshotWriteBytes bytes of a snapshot's chunk records written to the journal in one turn
   * @param metricPrefix the group's counters are {@code <prefix>.raft.rebuilt}, {@code <prefix>.snapshot.writeTurns}
   *     and {@code <prefix>.snapshot.partialDropped}
   */
  public record Settings(String groupId, List<NodeId> members, Duration electionTimeout, Duration heartbeatTimeout,
      int snapshotEvery, long snapshotWriteBytes, String metricPrefix) {
    public Settings {
      members = List.copyOf(members);
      Invariants.check(snapshotEvery > 0 && snapshotWriteBytes > 0, "Raft group %s: snapshotEvery %s and"
          + " snapshotWriteBytes %s must be positive", groupId, snapshotEvery, snapshotWriteBytes);
    }

    int heartbeatTimeoutSecs() {
      return (int) Math.max(2, heartbeatTimeout.toSeconds());
    }
  }

  /** What the group's members apply, in the group's order; called on the server's event loop. */
  public interface Machine<T> {
    /** Applies the committed operation at {@code index} (each index once, in order). */
    void apply(long index, T op);

    /** Hands over the state right after applying {@code index}, as parts (each becomes one snapshot chunk). */
    void takeSnapshot(long index, Consumer<ByteString> parts);

    /**
     * Replaces the state by a snapshot at {@code index}: the leader's (this replica was too far behind) or, if
     * {@code restored}, this replica's own, from its journal as it restarts.
     */
    void installSnapshot(long index, List<ByteString> parts, boolean restored);
  }

  /** Why a proposal did not commit: {@code appended} false if the leader refused it (it will never commit). */
  public record Failure(boolean appended, String cause) {}

  /** A proposal's outcome: {@code failure} is null once it is committed at {@code index}. */
  @FunctionalInterface
  public interface Outcome {
    void done(long index, Failure failure);
  }

  private final ServerContext ctx;
  private final Settings settings;
  private final Machine<T> machine;
  private final RaftJournal.Format<? extends Message> format;
  final NodeId self;
  final RaftConfig config;
  final RaftCodec codec;
  RaftNode node;
  RaftJournal<?> journal;
  private RaftDriver driver;
  private RaftWatchdog watchdog;
  private RaftNodeReport lastReport;
  /**
   * The highest index applied by any RaftNode of this server (or of the snapshot installed last). A RaftNode rebuilt
   * from the journal applies its log again from its snapshot: entries at or below this are not applied twice.
   */
  private long applied;
  /** The next snapshot installed is this replica's own, restored from its journal (else a leader's). */
  private boolean restoringSnapshot;
  /** A timer is set to write the journal's held snapshot chunks. */
  private boolean writingSnapshot;
  private long termMarker;
  private String pendingMarker = "";
  private boolean ready;

  /**
   * A replica of group {@code settings.groupId()} on the server of {@code ctx}, whose journal is kept in the server's
   * store under {@code format}; {@code operations} parses the operations proposed. Call {@link #start} from the
   * server's {@code onStart}, and hand the group every {@link Raft} message the server receives ({@link #handle}).
   */
  public RaftGroup(ServerContext ctx, Settings settings, Parser<T> operations,
      RaftJournal.Format<? extends Message> format, Machine<T> machine) {
    this.ctx = ctx;
    this.settings = settings;
    this.machine = machine;
    this.format = format;
    this.self = ctx.self();
    Invariants.check(settings.members().contains(self), "Raft group %s: %s is not among its members %s",
        settings.groupId(), self, settings.members());
    this.codec = new RaftCodec(new DefaultRaftModelFactory(), operations);
    this.config = RaftConfig.newBuilder()
        .setLeaderElectionTimeoutMillis(settings.electionTimeout().toMillis())
        .setLeaderHeartbeatPeriodSecs(RaftWatchdog.HEARTBEAT_PERIOD_SECS)
        .setLeaderHeartbeatTimeoutSecs(settings.heartbeatTimeoutSecs())
        .setCommitCountToTakeSnapshot(settings.snapshotEvery())
        .build();
  }

  /**
   * Opens the journal (voiding a snapshot a crash cut: the journal then means the snapshot before it and the whole
   * log since), starts the RaftNode from it (or as a new member) and, in a group of several, the watchdog.
   */
  public void start() {
    journal = open(ctx, format, codec);
    for (int i = journal.dropPartial(); i > 0; i--) {
      ctx.metrics().count(settings.metricPrefix() + ".snapshot.partialDropped");
    }
    RestoredRaftState restored = journal.restored();
    if (restored != null) {
      restoringSnapshot = restored.getSnapshotEntry() != null;
    }
    driver = new RaftDriver(ctx, this);
    watchdog = new RaftWatchdog(ctx, this, settings);
    startNode(restored);
    if (settings.members().size() > 1) {
      watchdog.start();
    }
  }

  private static <R extends Message> RaftJournal<R> open(ServerContext ctx, RaftJournal.Format<R> format,
      RaftCodec codec) {
    return new RaftJournal<>(ctx.<R>store(), format, codec);
  }

  /** Builds and starts the RaftNode: from the journal's state if it has one, else as a new member. */
  void startNode(RestoredRaftState restored) {
    RaftNode.RaftNodeBuilder b = RaftNode.newBuilder().setGroupId(settings.groupId()).setConfig(config)
        .setExecutor(driver.executor()).setTransport(driver.transport()).setStateMachine(driver.stateMachine())
        .setStore(journal).setModelFactory(codec.models()).setRandom(ctx.random())
        .setClock(driver.clock()).setRaftNodeReportListener(r -> lastReport = r);
    if (restored != null) {
      b.setRestoredState(restored);
    } else {
      List<RaftEndpoint> members = new ArrayList<>();
      for (NodeId n : settings.members()) {
        members.add(new RaftCodec.Endpoint(n));
      }
      b.setLocalEndpoint(new RaftCodec.Endpoint(self)).setInitialGroupMembers(members);
    }
    node = b.build();
    watchdog.alive();
    node.start();
  }

  /** A message from another member (register it as the server's handler of {@link Raft}). */
  public void handle(Raft m, NodeId from) {
    if (!m.getGroup().equals(settings.groupId()) || !settings.members().contains(from)
        || !m.getSender().equals(from.toString())) {
      ctx.log().warn("{}: dropping a Raft message for group {} from {} (sender {}): not a member of group {}", self,
          m.getGroup(), from, m.getSender(), settings.groupId());
      return;
    }
    RaftMessage decoded;
    try {
      decoded = codec.decode(m);
    } catch (IllegalArgumentException e) {
      ctx.log().warn("{}: dropping a malformed Raft message from {}: {}", self, from, e.getMessage());
      return;
    }
    if ((decoded instanceof AppendEntriesRequest || decoded instanceof InstallSnapshotRequest)
        && decoded.getTerm() >= node.getTerm().getTerm()) {
      watchdog.alive(); // a leader of this node's term (or a newer one) is heard
    }
    node.handle(decoded);
  }

  /**
   * Hands {@code op} to the group (this replica should be its leader): {@code outcome} learns its index once it is
   * committed (and applied here), or why not. Runs on the event loop (MicroRaft completes on its executor).
   */
  public void propose(T op, Outcome outcome) {
    node.replicate(op).whenComplete((Ordered<Object> done, Throwable e) -> {
      if (e == null) {
        outcome.done(done.getCommitIndex(), null);
        return;
      }
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      boolean refused = cause instanceof NotLeaderException || cause instanceof CannotReplicateException;
      outcome.done(0, new Failure(!refused, cause.toString()));
    });
  }

  /** Whether this replica is the group's leader (as far as it knows). */
  public boolean isLeader() {
    RaftEndpoint leader = node.getTerm().getLeaderEndpoint();
    return leader != null && RaftCodec.node(leader).equals(self);
  }

  /** Whether this replica is the leader and has applied every operation committed before its term. */
  public boolean isReadyLeader() {
    return isLeader() && ready;
  }

  /** The leader this replica knows of, or null. */
  public NodeId leader() {
    RaftEndpoint leader = node.getTerm().getLeaderEndpoint();
    return leader == null ? null : RaftCodec.node(leader);
  }

  public int term() {
    return node.getTerm().getTerm();
  }

  /** The highest index this replica applied (or installed a snapshot at). */
  public long applied() {
    return applied;
  }

  void watchdogAlive() {
    watchdog.alive();
  }

  /** The journal (tests). */
  public RaftJournal<?> journal() {
    return journal;
  }

  /**
   * "leader t=3", "follower t=3", "candidate t=4" or "learner t=3": the role of the last report of this replica's
   * RaftNode (MicroRaft reports every role change at once) and the current term; null before the first report.
   */
  public String role() {
    RaftNodeReport report = lastReport;
    return node == null || report == null ? null
        : report.getRole().name().toLowerCase(Locale.ROOT) + " t=" + node.getTerm().getTerm();
  }

  // MicroRaft's state machine (see RaftDriver)

  void runOperation(long index, Object op) {
    if (index <= applied) {
      // A rebuilt RaftNode applying its journal's log again: this replica has applied it already.
      Invariants.check(watchdog.rebuilds() > 0, "%s: MicroRaft applies entry %s again, at or below %s, without a"
          + " rebuild", self, index, applied);
      return;
    }
    if (op instanceof RaftCodec.NewTerm n) {
      if (n.marker().equals(pendingMarker)) {
        ready = true;
      }
    } else {
      @SuppressWarnings("unchecked")
      T t = (T) op;
      machine.apply(index, t);
    }
    applied = index;
  }

  Object newTermOperation() {
    pendingMarker = self + "#" + (++termMarker) + "@" + ctx.clock().micros();
    ready = false;
    return new RaftCodec.NewTerm(pendingMarker);
  }

  void takeSnapshot(long index, Consumer<Object> chunks) {
    // MicroRaft takes a snapshot right after applying index; a rebuilt node could only ask below `applied` if the
    // node before it had passed a snapshot point without one.
    Invariants.check(index >= applied, "%s: snapshot asked at %s, the state is at %s", self, index, applied);
    journal.taking(index); // MicroRaft persists the chunks next: the journal holds them, see writeSnapshot
    machine.takeSnapshot(index, chunks::accept);
    if (!writingSnapshot) {
      writingSnapshot = true;
      ctx.after(SNAPSHOT_WRITE_PERIOD, this::writeSnapshot);
    }
  }

  void installSnapshot(long index, List<Object> chunks) {
    if (index <= applied && !chunks.isEmpty()) {
      // A rebuilt RaftNode restoring the journal's snapshot, which this replica took or installed itself.
      Invariants.check(watchdog.rebuilds() > 0, "%s: MicroRaft installs a snapshot at %s, at or below %s, without a"
          + " rebuild", self, index, applied);
      return;
    }
    if (!chunks.isEmpty()) { // else MicroRaft's initial (empty) snapshot
      List<ByteString> parts = new ArrayList<>(chunks.size());
      for (Object c : chunks) {
        parts.add((ByteString) Objects.requireNonNull(c));
      }
      machine.installSnapshot(index, parts, restoringSnapshot);
      restoringSnapshot = false;
    }
    applied = Math.max(applied, index);
  }

  /**
   * Writes the held chunks of the snapshot this replica took to its journal, {@code snapshotWriteBytes} of them a
   * turn, a turn every {@link #SNAPSHOT_WRITE_PERIOD}, the last one with the journal's compaction (until then the
   * journal keeps the previous snapshot and every entry since, so a crash loses nothing): the snapshot's own turn is
   * not held by the write of the whole snapshot.
   */
  private void writeSnapshot() {
    int left = journal.writeHeld(settings.snapshotWriteBytes());
    ctx.metrics().count(settings.metricPrefix() + ".snapshot.writeTurns");
    if (left > 0) {
      ctx.after(SNAPSHOT_WRITE_PERIOD, this::writeSnapshot);
    } else {
      writingSnapshot = false;
    }
  }
}
