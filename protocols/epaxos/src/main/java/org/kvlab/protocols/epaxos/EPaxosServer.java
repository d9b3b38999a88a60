package org.kvlab.protocols.epaxos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.QuorumCall;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;
import org.kvlab.command.CommandReply;
import org.kvlab.command.CommandRequest;
import org.kvlab.command.Commands;

/**
 * EPaxos, one replica (the server of datacenter d is replica d), written with the protocol kit. The command leader
 * (the replica a client's session is attached to) pre-accepts its command in its next instance with the attributes
 * (seq, deps) its interference table gives ({@link Conflicts}); replicas add what they know and answer. If the
 * {@link #fastQuorum} of replicas (the leader included) answered with the leader's attributes unchanged, the
 * command commits at once (fast path); otherwise the leader takes the union of the dependencies and the highest seq
 * and runs a Paxos Accept on a majority (slow path). Committed instances execute through {@link Executor}; the leader
 * answers its client once it executed the command. Every instance's acceptor state is in the durable map
 * {@code instances}; a replica that waited {@code recoveryTimeout} for an instance runs the paper's recovery
 * ({@link #recover}). docs/protocols.md#epaxos has the interpretations.
 */
class EPaxosServer extends Server<Record> implements Executor.Replica {
  static final int PREACCEPTED = 1;
  static final int ACCEPTED = 2;
  static final int COMMITTED = 3;
  static final int EXECUTED = 4;
  static final Command NOOP = Command.newBuilder().setNoop(true).setId("noop").build();

  private List<NodeId> replicas;
  private List<NodeId> others;
  private int n;
  private int me;
  private boolean thrifty;
  private Duration timeout;
  private SlotMap<Instance> instances;
  private Slot<Frontier> frontier;
  private long[] upTo;
  private long exec;
  private long[][] peerUpTo;
  private long[] truncatedTo;
  private long nextInstance;
  private long proposed;
  private int quietTicks;
  private final Conflicts conflicts = new Conflicts();
  private final Executor executor = new Executor(this);
  private final Map<Long, Waiting> clients = new HashMap<>();
  /** Instances known here and not committed (or waited for by execution), with when they last progressed. */
  private final TreeMap<Long, Long> waitingSince = new TreeMap<>();
  private final Set<Long> recovering = new HashSet<>();
  private final Map<Long, Long> ballotSeen = new HashMap<>();

  private record Waiting(Request<CommandRequest> req, String cmdId, long startMicros) {}

  @Override
  protected void register(Handlers on) {
    on.request(CommandRequest.class, this::onClient);
    on.call(PreAccept.class, this::onPreAccept);
    on.call(Accept.class, this::onAccept);
    on.call(Prepare.class, this::onPrepare);
    on.message(Commit.class, (m, from) -> commitLocal(Ids.of(m.getId()), m.getCmd(), m.getSeq(), ids(m.getDepsList())));
    on.message(Executed.class, this::onExecuted);
    Duration gossip = params().duration("gossip", EPaxos.GOSSIP);
    Duration idle = gossip.compareTo(EPaxos.IDLE) > 0 ? gossip : EPaxos.IDLE;
    on.every(gossip, idle, EPaxos.IDLE, this::tick); // the framework's idle back-off: 1 s apart when nothing runs
  }

  @Override
  protected void onStart() {
    replicas = topology().allNodes().stream().filter(x -> x.partition() == partition())
        .sorted(java.util.Comparator.comparingInt(NodeId::dc)).toList();
    n = replicas.size();
    me = dc();
    others = replicas.stream().filter(x -> !x.equals(self())).toList();
    thrifty = params().bool("thrifty", false);
    timeout = params().duration("recoveryTimeout", EPaxos.RECOVERY_TIMEOUT);
    instances = slotMap("instances", Instance.getDefaultInstance());
    frontier = slot(Frontier.getDefaultInstance());
    upTo = new long[n];
    for (int r = 0; r < Math.min(n, frontier.get().getExecutedUpToCount()); r++) {
      upTo[r] = frontier.get().getExecutedUpTo(r);
    }
    exec = frontier.get().getExec();
    peerUpTo = new long[n][n];
    truncatedTo = new long[n];
    nextInstance = upTo[me] + 1;
    List<Long> toExecute = new ArrayList<>();
    for (String key : List.copyOf(instances.keys())) {
      Instance e = instances.get(key);
      long id = Ids.of(e.getId());
      if (Ids.replica(id) == me) {
        nextInstance = Math.max(nextInstance, Ids.instance(id) + 1);
      }
      if (e.getStatus() >= PREACCEPTED) {
        conflicts.open(id, e.getCmd(), e.getSeq());
      }
      if (e.getStatus() >= COMMITTED) {
        conflicts.committed(id, e.getCmd(), e.getCmd(), e.getSeq());
      }
      if (e.getStatus() == COMMITTED) {
        toExecute.add(id);
      } else if (e.getStatus() < COMMITTED) {
        waitingSince.put(id, nowMicros());
      }
    }
    toExecute.forEach(executor::tryExecute);
  }

  /** For `kvlab local status`: the instances this replica holds and those it waits for. */
  @Override
  public String role() {
    return instances == null ? null : "replica " + me + ", " + instances.size() + " instances, " + waitingSince.size()
        + " uncommitted";
  }

  /** Fast quorum, the leader included: 2F with F = floor(N/2) (the paper's basic EPaxos), at least a majority. */
  int fastQuorum() {
    return Math.max(2 * (n / 2), majority());
  }

  int majority() {
    return n / 2 + 1;
  }

  // ---- command leader ------------------------------------------------------------------------------------------

  private void onClient(Request<CommandRequest> req) {
    List<String> keys = Commands.keys(req.body());
    if (keys.isEmpty()) {
      req.fail("a command needs at least one key. Fix: name the keys it reads or writes");
      return;
    }
    Command cmd = Command.newBuilder().addAllKeys(keys).setOp(req.body())
        .setId(me + "." + incarnation() + "." + ++proposed).build();
    long id = Ids.of(me, nextInstance++);
    long seq = conflicts.seqFor(cmd);
    TreeSet<Long> deps = new TreeSet<>();
    conflicts.addDeps(cmd, id, deps);
    put(instance(id, PREACCEPTED, 0, cmd, seq, deps).build());
    conflicts.open(id, cmd, seq);
    waitingSince.put(id, nowMicros());
    clients.put(id, new Waiting(req, cmd.getId(), nowMicros()));
    phase1(id, 0, cmd, seq, deps, true, thrifty);
  }

  /** PreAccept at {@code ballot}: {@code fast} allows the fast path (the default ballot of a new command only). */
  private void phase1(long id, long ballot, Command cmd, long seq, SortedSet<Long> deps, boolean fast, boolean few) {
    int needed = fast ? fastQuorum() - 1 : majority() - 1;
    List<NodeId> to = few && needed < others.size() ? ring(needed) : others;
    PreAccept m = PreAccept.newBuilder().setId(Ids.proto(id)).setBallot(ballot).setCmd(cmd).setSeq(seq)
        .addAllDeps(Ids.protos(deps)).build();
    QuorumCall<PreAcceptReply> call = callAll(to, m, PreAcceptReply.class, needed, timeout);
    call.onQuorum(rs -> preAccepted(id, ballot, cmd, seq, deps, fast, rs.values()))
        .onFailure(f -> {
          if (to.size() < others.size()) {
            phase1(id, ballot, cmd, seq, deps, fast, false); // thrifty: the fast quorum did not all answer
          } else if (call.replies().size() >= majority() - 1) {
            preAccepted(id, ballot, cmd, seq, deps, false, call.replies().values());
          }
        });
  }

  /** The {@code count} replicas after this one in replica order (thrifty PreAccept). */
  private List<NodeId> ring(int count) {
    List<NodeId> out = new ArrayList<>();
    for (int k = 1; k <= count; k++) {
      out.add(replicas.get((me + k) % n));
    }
    return out;
  }

  private void preAccepted(long id, long ballot, Command cmd, long seq, SortedSet<Long> deps, boolean fast,
      Collection<PreAcceptReply> replies) {
    if (!ours(id, ballot)) {
      return;
    }
    long maxSeq = seq;
    TreeSet<Long> union = new TreeSet<>(deps);
    for (PreAcceptReply r : replies) {
      if (!r.getOk() || r.getCommitted()) {
        ballotSeen.merge(id, r.getBallot(), Math::max);
        return; // a higher ballot took the instance over, or it committed: its Commit reaches us, else recovery
      }
      maxSeq = Math.max(maxSeq, r.getSeq());
      union.addAll(ids(r.getDepsList()));
    }
    if (fast && ballot == 0 && fastPathAgrees(replies)) {
      commit(id, cmd, seq, deps, "consensus.fast");
    } else {
      accept(id, ballot, cmd, maxSeq, union, "consensus.slow");
    }
  }

  /** The fast path: a full fast quorum (the leader and fastQuorum - 1 others) all kept the leader's attributes. */
  boolean fastPathAgrees(Collection<PreAcceptReply> replies) {
    return replies.size() >= fastQuorum() - 1 && replies.stream().noneMatch(PreAcceptReply::getChanged);
  }

  /** Paxos Accept at {@code ballot} on a majority, then commit. */
  private void accept(long id, long ballot, Command cmd, long seq, SortedSet<Long> deps, String counter) {
    Instance e = instances.get(Ids.key(id));
    if (e != null && (e.getBallot() > ballot || e.getStatus() >= COMMITTED)) {
      return;
    }
    hold(id, e, instance(id, ACCEPTED, ballot, cmd, seq, deps).build());
    Accept m = Accept.newBuilder().setId(Ids.proto(id)).setBallot(ballot).setCmd(cmd).setSeq(seq)
        .addAllDeps(Ids.protos(deps)).build();
    callAll(others, m, AcceptReply.class, majority() - 1, timeout)
        .onQuorum(rs -> {
          for (AcceptReply r : rs.values()) {
            if (!r.getOk()) {
              ballotSeen.merge(id, r.getBallot(), Math::max);
              return;
            }
          }
          if (ours(id, ballot)) {
            commit(id, cmd, seq, deps, counter);
          }
        })
        .onFailure(f -> log().debug("accept of {} at ballot {}: {}", Ids.show(id), ballot, f));
  }

  private void commit(long id, Command cmd, long seq, SortedSet<Long> deps, String counter) {
    metrics().count(counter);
    Commit m = Commit.newBuilder().setId(Ids.proto(id)).setCmd(cmd).setSeq(seq).addAllDeps(Ids.protos(deps)).build();
    commitLocal(id, cmd, seq, deps);
    for (NodeId o : others) {
      try {
        send(o, m);
      } catch (BackPressureException full) {
        log().debug("commit of {} not sent to {}: {}", Ids.show(id), o, full.getMessage()); // it recovers it
      }
    }
  }

  /** Whether this replica still drives {@code id} at {@code ballot}. */
  private boolean ours(long id, long ballot) {
    Instance e = instances.get(Ids.key(id));
    return e != null && e.getBallot() == ballot && e.getStatus() < COMMITTED;
  }

  // ---- acceptor ------------------------------------------------------------------------------------------------

  private void onPreAccept(Request<PreAccept> req) {
    PreAccept m = req.body();
    long id = Ids.of(m.getId());
    Instance e = instances.get(Ids.key(id));
    PreAcceptReply.Builder r = PreAcceptReply.newBuilder().setOk(true);
    if (e == null && truncated(id) || e != null && e.getStatus() >= COMMITTED) {
      req.reply(r.setCommitted(true).build());
      return;
    }
    if (e != null && e.getBallot() > m.getBallot()) {
      req.reply(r.setOk(false).setBallot(e.getBallot()).build());
      return;
    }
    if (e != null && e.getStatus() > 0 && e.getVballot() == m.getBallot()) { // a repeat: the same answer
      boolean same = e.getSeq() == m.getSeq() && e.getDepsList().equals(m.getDepsList());
      req.reply(r.setSeq(e.getSeq()).addAllDeps(e.getDepsList()).setChanged(e.getStatus() != PREACCEPTED || !same)
          .build());
      return;
    }
    long seq = Math.max(m.getSeq(), conflicts.seqFor(m.getCmd()));
    TreeSet<Long> deps = ids(m.getDepsList());
    conflicts.addDeps(m.getCmd(), id, deps);
    boolean changed = seq != m.getSeq() || deps.size() != m.getDepsCount();
    hold(id, e, instance(id, PREACCEPTED, m.getBallot(), m.getCmd(), seq, deps)
        .setUnchanged(m.getBallot() == 0 && !changed).build());
    req.reply(r.setSeq(seq).addAllDeps(Ids.protos(deps)).setChanged(changed).build());
  }

  private void onAccept(Request<Accept> req) {
    Accept m = req.body();
    long id = Ids.of(m.getId());
    Instance e = instances.get(Ids.key(id));
    if (e != null && e.getBallot() > m.getBallot()) {
      req.reply(AcceptReply.newBuilder().setBallot(e.getBallot()).build());
      return;
    }
    if (!(e == null && truncated(id) || e != null && e.getStatus() >= COMMITTED)) {
      hold(id, e, instance(id, ACCEPTED, m.getBallot(), m.getCmd(), m.getSeq(), ids(m.getDepsList())).build());
    }
    req.reply(AcceptReply.newBuilder().setOk(true).setBallot(m.getBallot()).build());
  }

  private void onPrepare(Request<Prepare> req) {
    Prepare m = req.body();
    long id = Ids.of(m.getId());
    Instance e = instances.get(Ids.key(id));
    if (e == null && truncated(id)) {
      req.reply(PrepareReply.newBuilder().setOk(true).setTruncated(true).build());
      return;
    }
    if (e != null && e.getBallot() >= m.getBallot()) {
      req.reply(PrepareReply.newBuilder().setBallot(e.getBallot()).build());
      return;
    }
    Instance promised = (e == null ? Instance.newBuilder().setId(m.getId()) : e.toBuilder())
        .setBallot(m.getBallot()).build();
    put(promised);
    if (promised.getStatus() < COMMITTED) {
      waitingSince.putIfAbsent(id, nowMicros()); // if the recoverer fails, recover it here
    }
    req.reply(PrepareReply.newBuilder().setOk(true).setBallot(m.getBallot()).setKnown(promised.getStatus() > 0)
        .setState(promised).build());
  }

  /** Stores a pre-accepted or accepted instance (replacing {@code before}) and keeps the table in step. */
  private void hold(long id, Instance before, Instance now) {
    if (before != null && before.getStatus() > 0 && !before.getCmd().equals(now.getCmd())) {
      conflicts.forget(id, before.getCmd());
    }
    put(now);
    conflicts.open(id, now.getCmd(), now.getSeq());
    waitingSince.put(id, nowMicros());
  }

  // ---- commit and execution -------------------------------------------------------------------------------------

  void commitLocal(long id, Command cmd, long seq, SortedSet<Long> deps) {
    Instance e = instances.get(Ids.key(id));
    if (e == null && truncated(id)) {
      return;
    }
    if (e != null && e.getStatus() >= COMMITTED) {
      Invariants.check(e.getCmd().equals(cmd) && e.getSeq() == seq && ids(e.getDepsList()).equals(deps),
          "instance %s committed twice with different commands or attributes: %s, then %s", Ids.show(id),
          describe(e.getCmd(), e.getSeq(), ids(e.getDepsList())), describe(cmd, seq, deps));
      return;
    }
    put(instance(id, COMMITTED, e == null ? 0 : e.getBallot(), cmd, seq, deps).build());
    conflicts.committed(id, e == null || e.getStatus() == 0 ? null : e.getCmd(), cmd, seq);
    waitingSince.remove(id);
    ballotSeen.remove(id);
    Waiting w = clients.get(id);
    if (w != null && !w.cmdId().equals(cmd.getId())) {
      clients.remove(id);
      w.req().fail("instance " + Ids.show(id) + " was committed with a no-op by recovery: the command never ran");
    }
    committed(id);
  }

  /** Instance {@code id} committed here: hand it to the executor (the mutant overrides this rule). */
  void committed(long id) {
    executor.committed(id);
  }

  @Override
  public Instance entry(long id) {
    return instances.get(Ids.key(id));
  }

  @Override
  public boolean executed(long id) {
    Instance e = instances.get(Ids.key(id));
    return e == null ? truncated(id) : e.getStatus() == EXECUTED;
  }

  @Override
  public void waitingFor(long id) {
    waitingSince.putIfAbsent(id, nowMicros());
  }

  /** Runs a committed command on the store, marks it executed, answers its client if this replica leads it. */
  @Override
  public void execute(Instance e) {
    long id = Ids.of(e.getId());
    Command c = e.getCmd();
    CommandReply.Builder reply = CommandReply.newBuilder();
    if (!c.getNoop()) {
      reply = Commands.execute(c.getOp(), k -> store().newest(k).map(Record::getValue), (k, v) -> {
        Optional<Record> newest = store().newest(k);
        if (newest.isPresent() && newest.get().getWriter() == id) {
          return; // written by this very execution before a restart that lost the executed mark: not again
        }
        // versions grow per key even when the restart also lost the counter's last value (the store kept more)
        exec = Math.max(exec + 1, newest.map(r -> r.getExec() + 1).orElse(0L));
        store().put(k, Record.newBuilder().setValue(v).setExec(exec).setWriter(id).build());
        store().prune(k, x -> true); // only the newest version is ever read
      });
    }
    reply.setTs(e.getSeq()).setTid(id);
    put(e.toBuilder().setStatus(EXECUTED).build());
    int r = Ids.replica(id);
    while (executedEntry(r, upTo[r] + 1)) {
      upTo[r]++;
    }
    Frontier.Builder f = Frontier.newBuilder().setExec(exec);
    for (long u : upTo) {
      f.addExecutedUpTo(u);
    }
    frontier.set(f.build());
    metrics().count("consensus.delivered");
    Waiting w = clients.remove(id);
    if (w != null) {
      metrics().record("consensus.latencyMicros", nowMicros() - w.startMicros());
      w.req().reply(reply.build());
    }
  }

  private boolean executedEntry(int replica, long instance) {
    Instance e = instances.get(Ids.key(replica, instance));
    return e != null && e.getStatus() == EXECUTED;
  }

  /** How many instances the durable map holds (truncation keeps it to what some replica has not executed). */
  int heldInstances() {
    return instances.size();
  }

  /** Executed by every replica and removed here. */
  private boolean truncated(long id) {
    return Ids.instance(id) <= upTo[Ids.replica(id)];
  }

  // ---- recovery ------------------------------------------------------------------------------------------------

  /**
   * Explicit Prepare (the paper's Fig. 3, for its basic protocol with a fast quorum of 2F): take a higher ballot on
   * a majority, then: some replica committed it → commit that; some accepted it → Accept the value of the highest
   * ballot; at least floor(N/2) replicas other than its leader pre-accepted exactly the leader's attributes in the
   * default ballot → Accept those (the fast path may have committed them); some pre-accepted it → PreAccept the
   * command again at the new ballot, no fast path (the slow path with the union of the dependencies); nobody saw it →
   * commit a no-op.
   */
  private void recover(long id) {
    Instance e = instances.get(Ids.key(id));
    if (e != null && e.getStatus() >= COMMITTED || e == null && truncated(id)) {
      waitingSince.remove(id);
      return;
    }
    long seen = Math.max(e == null ? 0 : e.getBallot(), ballotSeen.getOrDefault(id, 0L));
    long ballot = (((seen >> 8) + 1) << 8) | (me + 1);
    Instance mine = (e == null ? Instance.newBuilder().setId(Ids.proto(id)) : e.toBuilder()).setBallot(ballot).build();
    put(mine);
    recovering.add(id);
    waitingSince.put(id, nowMicros());
    metrics().count("epaxos.recoveries");
    callAll(others, Prepare.newBuilder().setId(Ids.proto(id)).setBallot(ballot).build(), PrepareReply.class,
        majority() - 1, timeout)
        .onQuorum(rs -> {
          recovering.remove(id);
          decide(id, ballot, rs);
        })
        .onFailure(f -> recovering.remove(id));
  }

  private void decide(long id, long ballot, Map<NodeId, PrepareReply> replies) {
    if (!ours(id, ballot)) {
      return;
    }
    Map<Integer, Instance> states = new TreeMap<>();
    for (Map.Entry<NodeId, PrepareReply> r : replies.entrySet()) {
      if (!r.getValue().getOk() || r.getValue().getTruncated()) {
        ballotSeen.merge(id, r.getValue().getBallot(), Math::max);
        return;
      }
      if (r.getValue().getKnown()) {
        states.put(r.getKey().dc(), r.getValue().getState());
      }
    }
    Instance own = instances.get(Ids.key(id));
    if (own.getStatus() > 0) {
      states.put(me, own);
    }
    Instance best = null;
    for (Instance s : states.values()) {
      if (s.getStatus() >= COMMITTED) {
        commit(id, s.getCmd(), s.getSeq(), ids(s.getDepsList()), "epaxos.recovered");
        return;
      }
      if (s.getStatus() == ACCEPTED && (best == null || s.getVballot() > best.getVballot())) {
        best = s;
      }
    }
    if (best != null) {
      accept(id, ballot, best.getCmd(), best.getSeq(), ids(best.getDepsList()), "epaxos.recovered");
      return;
    }
    int leader = Ids.replica(id);
    List<Instance> leaders = states.entrySet().stream().filter(s -> s.getKey() != leader)
        .map(Map.Entry::getValue).filter(s -> s.getStatus() == PREACCEPTED && s.getVballot() == 0 && s.getUnchanged())
        .toList();
    if (leaders.size() >= n / 2 && !leaders.isEmpty()) {
      Instance s = leaders.get(0);
      accept(id, ballot, s.getCmd(), s.getSeq(), ids(s.getDepsList()), "epaxos.recovered");
      return;
    }
    Instance any = states.values().stream().filter(s -> s.getStatus() == PREACCEPTED).findFirst().orElse(null);
    if (any == null) {
      accept(id, ballot, NOOP, 0, new TreeSet<>(), "epaxos.recovered");
      return;
    }
    long seq = Math.max(any.getSeq(), conflicts.seqFor(any.getCmd()));
    TreeSet<Long> deps = new TreeSet<>();
    for (Instance s : states.values()) {
      if (s.getStatus() == PREACCEPTED && s.getCmd().equals(any.getCmd())) {
        seq = Math.max(seq, s.getSeq());
        deps.addAll(ids(s.getDepsList()));
      }
    }
    conflicts.addDeps(any.getCmd(), id, deps);
    hold(id, own, instance(id, PREACCEPTED, ballot, any.getCmd(), seq, deps).build());
    phase1(id, ballot, any.getCmd(), seq, deps, false, false);
  }

  // ---- gossip, truncation, recovery timer ---------------------------------------------------------------------

  private void tick() {
    if (!java.util.Arrays.equals(peerUpTo[me], upTo) || ++quietTicks >= 10) { // changed, or a reminder (restarts)
      quietTicks = 0;
      Executed m = Executed.newBuilder().addAllExecutedUpTo(java.util.Arrays.stream(upTo).boxed().toList()).build();
      for (NodeId o : others) {
        try {
          send(o, m);
        } catch (BackPressureException full) {
          log().debug("executed frontier not sent to {}: {}", o, full.getMessage());
        }
      }
    }
    peerUpTo[me] = upTo.clone();
    truncate();
    long now = nowMicros();
    long after = timeout.toNanos() / 1_000;
    int started = 0;
    for (Map.Entry<Long, Long> w : List.copyOf(waitingSince.entrySet())) {
      if (started < 16 && now - w.getValue() >= after && !recovering.contains(w.getKey())
          && random().nextInt(4) == 0) {
        started++;
        recover(w.getKey());
      }
    }
  }

  private void onExecuted(Executed m, NodeId from) {
    for (int r = 0; r < Math.min(n, m.getExecutedUpToCount()); r++) {
      peerUpTo[from.dc()][r] = Math.max(peerUpTo[from.dc()][r], m.getExecutedUpTo(r));
    }
  }

  /** Removes the instances every replica executed (the lowest executed prefix per leader replica). */
  private void truncate() {
    for (int r = 0; r < n; r++) {
      long min = Long.MAX_VALUE;
      for (long[] p : peerUpTo) {
        min = Math.min(min, p[r]);
      }
      if (min > truncatedTo[r]) {
        for (String key : List.copyOf(instances.keys().subSet(Ids.key(r, truncatedTo[r] + 1), true, Ids.key(r, min),
            true))) {
          Invariants.check(instances.get(key).getStatus() == EXECUTED, "instance %s removed before it executed",
              key);
          instances.remove(key);
        }
        truncatedTo[r] = min;
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  private void put(Instance e) {
    instances.put(Ids.key(Ids.of(e.getId())), e);
  }

  private static Instance.Builder instance(long id, int status, long ballot, Command cmd, long seq,
      SortedSet<Long> deps) {
    return Instance.newBuilder().setId(Ids.proto(id)).setStatus(status).setBallot(ballot).setVballot(ballot)
        .setCmd(cmd).setSeq(seq).addAllDeps(Ids.protos(deps));
  }

  static TreeSet<Long> ids(List<InstanceId> ids) {
    TreeSet<Long> out = new TreeSet<>();
    ids.forEach(i -> out.add(Ids.of(i)));
    return out;
  }

  private static String describe(Command c, long seq, SortedSet<Long> deps) {
    return (c.getNoop() ? "no-op" : c.getId() + " " + c.getKeysList()) + " seq " + seq + " deps "
        + deps.stream().map(Ids::show).toList();
  }
}
