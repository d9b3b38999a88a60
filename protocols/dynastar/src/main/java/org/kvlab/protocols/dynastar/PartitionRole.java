package org.kvlab.protocols.dynastar;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;
import org.kvlab.api.TxnProcedures;
import org.kvlab.consensus.multicast.MulticastLog;
import org.kvlab.consensus.multicast.SkeenMulticast;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.store.VersionedStore;

/**
 * A DynaStar data partition (the seed's Algorithm 3, one server per partition). It processes what the multicast
 * delivers strictly in delivery order:
 *
 * <ul>
 *   <li><b>Command</b> whose locations (the client's claims, carried in the command) all name this partition: executes
 *       it if it holds every key, else answers "retry" (the client asks the oracle and tries again).
 *   <li><b>Multi-partition command</b>: the destination ({@link DestinationRule}) waits for a {@link Lend} from every
 *       other partition of the command, executes it on its own and the borrowed values, answers the client and
 *       {@link Return}s the borrowed variables with their new values. A lender sends the keys it actually holds
 *       (possibly none) and says whether that is all the command claims there (the digest's note 3, so all agree on
 *       "retry"); if it lent anything it <b>blocks</b>, processing nothing else until the return (the seed's choice,
 *       kept: it is what makes sequential delivery linearizable; the mutant {@code lender-no-wait} goes on and the
 *       checker catches it).
 *   <li><b>Plan</b>: sends each variable the plan gives another partition to it ({@link Move}) and notes the ones it
 *       gives this partition; it does not wait for them. A later command that needs one of those waits for that
 *       variable only, so command execution never waits for the whole plan. This is the seed's eager exchange (its
 *       §4.2.3, "about 10 s" to converge in the TPC-C run) rather than §7's on-demand moves (decided: eager moves
 *       bound how long a plan is in flight and keep the location map exact once it lands; on-demand moves would leave
 *       variables at their old partition indefinitely, and the oracle would have to answer for both). The seed's
 *       garbled Task 3 is read from its prose: send what leaves, then install what arrives. A variable that arrives
 *       after a later plan gave it elsewhere is forwarded there.
 * </ul>
 *
 * <p>Location invariant, asserted as it changes: a partition lends only what it holds, never receives a variable it
 * holds (a lend, a move), gets back exactly what it lent, and installs only a variable an applied plan sends it; so
 * every variable is held by exactly one partition or in flight between exactly one pair.
 *
 * <p>Crash recovery: the whole protocol state ({@link PartitionState}: the Skeen member, the delivered queue, the
 * lender's wait, the lends received, the plan's expected variables) goes to the kit's slot at the end of every turn,
 * which variables it holds against the initial placement to a durable map, their values to the store; under
 * durability sync a turn's messages leave only once these are durable, so a restarted partition resumes exactly where
 * it stopped (clients whose request it held see an unknown outcome).
 *
 * <p>Replicated partitions ({@link Groups}): the partition is a Raft group ({@link GroupReplica}); its leader takes
 * the clients' requests and multicasts them, and every replica runs this class as a deterministic state machine over
 * the group's deliveries (commands, plans, and the lends, returns and moves other groups multicast to it), with the
 * variables' values, the holders and the state above in memory and in the group's Raft snapshots instead of the
 * store and the slot. Lends, returns and moves go through the group's outbox ({@link GroupReplica#post}). A client
 * request carries its session and number; the group executes the first copy it delivers and answers a repeat (the
 * client's retry at another replica after a timeout or a leader change) with the reply it kept ({@link Dedup}), so a
 * command never executes twice. The replica that took the request answers it once its copy of the state machine
 * executes the command.
 */
class PartitionRole implements GroupReplica.Machine {
  private final ServerContext ctx;
  private final int me;
  private final int oracle;
  private final boolean lenderNoWait;
  private InitialPlacement placement;
  private VersionedStore<Record> store;
  private SkeenMulticast<Cast> skeen;
  private Slot<PartitionState> slot;
  private SlotMap<Held> held;
  /** Replicated partitions: the group's replica (null: one server per partition). */
  private GroupReplica rep;
  private final TreeMap<String, KeyValue> data = new TreeMap<>();   // replicated: the values written here
  private final TreeMap<String, Boolean> heldHere = new TreeMap<>(); // replicated: holders unlike the placement
  private final Dedup<Long> clients = new Dedup<>();                 // replicated: requests per client session

  // the durable state, mirrored in memory and saved at the end of every turn
  private final ArrayDeque<Cast> queue = new ArrayDeque<>();
  private long blocked;
  private final List<String> lent = new ArrayList<>();
  private final TreeMap<Long, List<Lend>> lends = new TreeMap<>();
  private long plan;
  private final List<Move> moves = new ArrayList<>();
  private final TreeMap<String, Integer> expected = new TreeMap<>();
  private long seq;
  private long ver;
  private long executed;

  // volatile: the clients' requests this partition holds (lost in a crash: those clients see an unknown outcome), and
  // the keys of the commands executed since the last hint
  private final Map<Pending, Request<ExecReq>> requests = new HashMap<>();
  /** Replicated: when each held request came, in sweeps ({@link #SWEEP}); {@link #sweep} redirects the stale ones. */
  private final Map<Pending, Long> heldSince = new HashMap<>();
  /** Replicated, as a follower: the requests refused here since the last sweep, and how often. */
  private final Map<Pending, Integer> refused = new HashMap<>();
  private long sweeps;
  /** Replicated: how often a replica looks for requests it has held for 2 to 3 sweeps. */
  static final Duration SWEEP = Duration.ofMillis(500);
  /**
   * Replicated: how long a follower holds its {@code not_leader} answer when it knows no leader, or refused the same
   * request before (300 sends of a request then span seconds of an election rather than a millisecond of refusals
   * that follow the hint to a leader that has just crashed).
   */
  static final Duration NO_LEADER_WAIT = Duration.ofMillis(50);
  private final List<Keys> hints = new ArrayList<>();
  private static final int HINTS_MAX = 4096;
  /** Tests: where this partition records its multicasts and deliveries (null: nowhere). */
  MulticastLog observed;
  /** Tests, replicated partitions: sees every delivery at every replica. */
  GroupReplica.Observer watch;

  /** A request this replica holds: its client session and number (one server per partition: 0 and the command id). */
  private record Pending(long client, long n) {}

  PartitionRole(ServerContext ctx) {
    this.ctx = ctx;
    this.me = ctx.self().partition();
    this.oracle = DynaStar.oracle(ctx.topology());
    this.lenderNoWait = ctx.params().string("mutant", "none").equals("lender-no-wait");
  }

  void register(Handlers on) {
    if (Groups.replicated(ctx.topology())) {
      rep = new GroupReplica(ctx, this);
      rep.register(on);
      on.request(ExecReq.class, this::onExecReplicated);
      return;
    }
    skeen = new SkeenMulticast<>(me, Cast.parser(), (g, m) -> ctx.send(NodeId.of(0, g), m),
        (id, c, ts) -> {
          if (observed != null) {
            observed.delivered(me, id);
          }
          queue.add(c.toBuilder().setTs(ts).build());
        });
    on.request(ExecReq.class, req -> turn(() -> onExec(req)));
    skeen.register(on, this::turn);
    on.message(Lend.class, (m, from) -> turn(() -> onLend(m)));
    on.message(Return.class, (m, from) -> turn(() -> onReturn(m)));
    on.message(Move.class, (m, from) -> turn(() -> onMove(m)));
  }

  void start() {
    placement = InitialPlacement.parse(ctx.params().string("placement", "hash"), oracle);
    if (rep != null) {
      rep.observer = watch;
      rep.start();
      ctx.every(ctx.params().duration("hintEvery", Duration.ofMillis(100)), this::hint);
      ctx.every(SWEEP, this::sweep);
      return;
    }
    store = ctx.store();
    held = ctx.slotMap("held", Held.getDefaultInstance());
    slot = ctx.slot(PartitionState.getDefaultInstance());
    recover();
    if (!ctx.params().duration("repartitionEvery", Duration.ofSeconds(5)).isZero()) {
      ctx.every(ctx.params().duration("hintEvery", Duration.ofMillis(100)), this::hint);
    }
  }

  long plan() {
    return plan;
  }

  int partition() {
    return me;
  }

  // ------------------------------------------------------------------------------------------------ turns and state

  /** Runs {@code event}, processes what became processable, and saves the state (written at the turn's end). */
  private void turn(Runnable event) {
    event.run();
    pump();
    if (rep == null) {
      slot.set(protocolState().setSkeen(skeen.state().toByteString()).build());
    }
  }

  /** The protocol state but the multicast's. */
  private PartitionState.Builder protocolState() {
    PartitionState.Builder s = PartitionState.newBuilder().addAllQueue(queue)
        .setBlocked(blocked).addAllLent(lent).setPlan(plan).addAllMoves(moves).putAllExpected(expected).setSeq(seq)
        .setVer(ver).setExecuted(executed);
    lends.forEach((id, l) -> s.putLends(id, Lends.newBuilder().addAllLends(l).build()));
    return s;
  }

  private void recover() {
    PartitionState s = slot.get();
    if (s.equals(PartitionState.getDefaultInstance())) {
      return;
    }
    try {
      skeen.restore(SkeenState.parseFrom(s.getSkeen()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("dynastar: partition " + me + " cannot read its saved multicast state ("
          + e.getMessage() + "). Fix: start from an empty data directory", e);
    }
    load(s);
    ctx.metrics().count("dynastar.recovered");
  }

  /** Replaces the protocol state (but the multicast's) by {@code s}. */
  private void load(PartitionState s) {
    queue.clear();
    lent.clear();
    lends.clear();
    moves.clear();
    expected.clear();
    queue.addAll(s.getQueueList());
    blocked = s.getBlocked();
    lent.addAll(s.getLentList());
    s.getLendsMap().forEach((id, l) -> lends.put(id, new ArrayList<>(l.getLendsList())));
    plan = s.getPlan();
    moves.addAll(s.getMovesList());
    expected.putAll(s.getExpectedMap());
    seq = s.getSeq();
    ver = s.getVer();
    executed = s.getExecuted();
  }

  // ------------------------------------------------------------------------------------------------ replicated

  @Override
  public void delivered(long position, long id, Cast c) {
    switch (c.getWhatCase()) {
      case CMD -> {
        Cmd cmd = c.getCmd().toBuilder().setId(id).build();
        boolean fresh = clients.fresh(cmd.getClient(), cmd.getReq(), cmd.getLow());
        queue.add(c.toBuilder().setCmd(cmd).setDup(!fresh).build());
      }
      case PLAN -> queue.add(c);
      case LEND -> {
        if (rep.accept(c)) {
          onLend(c.getLend());
        }
      }
      case RET -> {
        if (rep.accept(c)) {
          onReturn(c.getRet());
        }
      }
      case MOVE -> {
        if (rep.accept(c)) {
          onMove(c.getMove());
        }
      }
      default -> Invariants.check(false, "dynastar: partition %s delivered an empty multicast %s", me, id);
    }
    pump();
  }

  @Override
  public ByteString snapshot() {
    ReplicaState.Builder s = ReplicaState.newBuilder().setPart(protocolState()).putAllData(data)
        .putAllHeld(heldHere).putAllClients(clients.save());
    rep.save(s);
    return s.build().toByteString();
  }

  @Override
  public void install(ByteString state) {
    ReplicaState s;
    try {
      s = ReplicaState.parseFrom(state);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("dynastar: partition " + me + " cannot read its group's snapshot ("
          + e.getMessage() + "). Fix: every replica must run the same protocol build", e);
    }
    load(s.getPart());
    data.clear();
    data.putAll(s.getDataMap());
    heldHere.clear();
    heldHere.putAll(s.getHeldMap());
    clients.load(s.getClientsMap());
    rep.load(s);
  }

  /** Tests: deliveries applied at this replica (replicated partitions; -1 otherwise). */
  long position() {
    return rep == null ? -1 : rep.position();
  }

  /** Whether this partition holds {@code key} (lent or not). */
  boolean holds(String key) {
    if (rep != null) {
      Boolean h = heldHere.get(key);
      return h != null ? h : placement.of(key) == me;
    }
    Held h = held.get(key);
    return h != null ? h.getHeld() : placement.of(key) == me;
  }

  private void setHeld(String key, boolean yes) {
    if (rep != null) {
      if ((placement.of(key) == me) == yes) {
        heldHere.remove(key);
      } else {
        heldHere.put(key, yes);
      }
      return;
    }
    if ((placement.of(key) == me) == yes) {
      held.remove(key);
    } else {
      held.put(key, Held.newBuilder().setHeld(yes).build());
    }
  }

  /** Tests: the variables lent and not yet back, and whether anything is queued, awaited or in flight here. */
  List<String> lent() {
    return List.copyOf(lent);
  }

  /** Tests: what this partition waits on, for people. */
  String describe() {
    return "p" + me + " plan=" + plan + " blocked=" + blocked + " lent=" + lent + " queue=" + queue.size()
        + (queue.isEmpty() ? "" : " head=" + (queue.peekFirst().hasPlan() ? "plan " + queue.peekFirst().getPlan().getId()
        : "cmd " + queue.peekFirst().getCmd().getId() + " locs " + queue.peekFirst().getCmd().getLocsMap()))
        + " lends=" + lends.keySet() + " expected=" + expected + " moves=" + moves.size()
        + (rep == null ? " skeenHolding=" + skeen.undelivered().size() : " outbox=" + rep.outstanding());
  }

  boolean quiescent() {
    return queue.isEmpty() && blocked == 0 && lends.isEmpty() && moves.isEmpty() && expected.isEmpty()
        && (rep == null || rep.outstanding() == 0);
  }

  // ------------------------------------------------------------------------------------------------ client requests

  /** Whether {@code req} is a well-formed command for this partition (else it is failed). */
  private boolean valid(Request<ExecReq> req) {
    ExecReq b = req.body();
    TreeSet<String> keys = new TreeSet<>(b.getReadsList());
    keys.addAll(b.getWritesMap().keySet());
    if (keys.isEmpty() || !keys.equals(b.getLocsMap().keySet())
        || b.getLocsMap().values().stream().anyMatch(p -> p < 0 || p >= oracle)) {
      req.fail("dynastar: a command must give a data partition (0 to " + (oracle - 1) + ") for each of its keys and"
          + " no other; got " + b.getLocsMap() + " for " + keys + ". Fix: use the dynastar client");
      return false;
    }
    int d = DestinationRule.target(b.getLocsMap());
    Invariants.check(d == me, "dynastar: partition %s got a command whose destination by the servers' rule is %s"
        + " (locations %s): client and servers must compute one destination rule", me, d, b.getLocsMap());
    return true;
  }

  private static Cmd.Builder command(ExecReq b, int me) {
    return Cmd.newBuilder().setOrigin(me).addAllReads(b.getReadsList()).putAllWrites(b.getWritesMap())
        .setProcedure(b.getProcedure()).addAllArgs(b.getArgsList()).putAllLocs(b.getLocsMap());
  }

  /**
   * Replicated: the leader multicasts the request (with its session and number) to the partitions of its locations;
   * a follower answers {@code not_leader} with the leader it knows, and so does a leader whose multicast failed (the
   * client tries again with the same number: if the multicast committed after all, the group answers the repeat
   * with the first copy's reply).
   */
  private void onExecReplicated(Request<ExecReq> req) {
    ExecReq b = req.body();
    Pending k = new Pending(b.getClient(), b.getReq());
    if (!rep.isLeader()) {
      if (rep.leaderHint() == 0 || refused.merge(k, 1, Integer::sum) > 1) {
        // no leader known (an election), or this request refused here before (its hint led to a leader that is
        // gone, and this replica does not know it yet): the answer waits a little, else a session would spend its
        // sends on rounds of refusals within a millisecond and report an unknown outcome before the group elects
        ctx.after(NO_LEADER_WAIT, () -> req.reply(notLeader()));
        return;
      }
      req.reply(notLeader());
      return;
    }
    if (!valid(req)) {
      return;
    }
    Request<ExecReq> earlier = requests.put(k, req);
    if (earlier != null) {
      // the client sent this request here before and gave up on that call (its timeout): answer it, once
      earlier.reply(notLeader());
    }
    heldSince.put(k, sweeps);
    Cmd c = command(b, me).setClient(b.getClient()).setReq(b.getReq()).setLow(b.getLow()).build();
    rep.multicast(Cast.newBuilder().setCmd(c).build(), new TreeSet<>(b.getLocsMap().values()), (id, failure) -> {
      if (failure != null && requests.remove(k, req)) {
        req.reply(notLeader());
      }
    });
  }

  /** Replicated: "not the leader", with the leader this replica knows now (0: none), for the client to try next. */
  private ExecReply notLeader() {
    return ExecReply.newBuilder().setNotLeader(true).setLeader(rep.leaderHint()).build();
  }

  /**
   * Replicated: answers {@code not_leader} to the requests held for 2 to 3 sweeps (1 to 1.5 s, below the client's
   * timeout): their copy may be lost with a leader change, or wait behind a lagging log here. The client sends the
   * same request again (to the leader), and the group answers whichever copy it delivers first, once.
   */
  private void sweep() {
    sweeps++;
    refused.clear();
    heldSince.entrySet().removeIf(e -> {
      if (!requests.containsKey(e.getKey())) {
        return true;
      }
      if (sweeps - e.getValue() < 3) {
        return false;
      }
      ctx.metrics().count("dynastar.redirected");
      requests.remove(e.getKey()).reply(notLeader());
      return true;
    });
  }

  private void onExec(Request<ExecReq> req) {
    if (!valid(req)) {
      return;
    }
    ExecReq b = req.body();
    long id = ((long) me << 40) | ++seq;
    Cmd c = command(b, me).setId(id).build();
    requests.put(new Pending(0, id), req);
    TreeSet<Integer> dests = new TreeSet<>(b.getLocsMap().values());
    if (observed != null) {
      observed.multicast(me, id, dests);
    }
    skeen.multicast(id, Cast.newBuilder().setCmd(c).build(), dests);
  }

  // ------------------------------------------------------------------------------------------------ delivery order

  private void pump() {
    while (!queue.isEmpty() && blocked == 0) {
      Cast head = queue.peekFirst();
      if (head.hasPlan()) {
        if (rep == null || head.getPlan().getId() > plan) {
          apply(head.getPlan()); // replicated: a new oracle leader may multicast a plan number twice, the first wins
        }
      } else if (head.getDup()) {
        answerRepeat(head.getCmd());
      } else if (!process(head.getCmd(), head.getTs())) {
        return;
      }
      queue.pollFirst();
    }
  }

  /** Processes command {@code c}; false if it must wait (for a variable a plan sends here, or for lends). */
  private boolean process(Cmd c, long ts) {
    Map<String, Integer> locs = c.getLocsMap();
    List<String> mine = new ArrayList<>();
    for (String k : new TreeSet<>(locs.keySet())) {
      if (locs.get(k) == me) {
        Integer to = expected.get(k);
        if (to != null && to == me) {
          return false; // a plan sends it here: wait for it (and only it)
        }
        mine.add(k);
      }
    }
    List<String> have = mine.stream().filter(this::holds).toList();
    boolean complete = have.size() == mine.size();
    TreeSet<Integer> dests = new TreeSet<>(locs.values());
    int d = DestinationRule.target(locs);
    if (dests.size() == 1) {
      if (complete) {
        ctx.metrics().count("dynastar.singlePartition");
        execute(c, ts, values(have), List.of());
      } else {
        retry(c);
      }
      return true;
    }
    if (d != me) {
      List<KeyValue> vars = values(have);
      send(d, Lend.newBuilder().setCmd(c.getId()).setFrom(me).addAllVars(vars).setComplete(complete).build());
      if (!have.isEmpty() && !lenderNoWait) {
        blocked = c.getId(); // the seed's lender: nothing else until the variables come back
        lent.addAll(have);
        ctx.metrics().count("dynastar.lends");
      }
      for (int i = 0; i < have.size(); i++) {
        ctx.metrics().count("dynastar.lent"); // one per variable: the objects a partition exchanges (Table 1)
      }
      return true;
    }
    List<Lend> got = lends.getOrDefault(c.getId(), List.of());
    if (got.size() < dests.size() - 1) {
      return false;
    }
    lends.remove(c.getId());
    boolean all = complete && got.stream().allMatch(Lend::getComplete);
    List<KeyValue> vars = new ArrayList<>(values(have));
    got.forEach(l -> vars.addAll(l.getVarsList()));
    Map<String, ByteString> writes = Map.of();
    if (all) {
      ctx.metrics().count("dynastar.multiPartition");
      writes = execute(c, ts, vars, got);
    } else {
      retry(c);
    }
    for (Lend l : got) {
      if (l.getVarsCount() == 0) {
        continue;
      }
      Return.Builder r = Return.newBuilder().setCmd(c.getId()).setFrom(me);
      for (KeyValue kv : l.getVarsList()) {
        ByteString w = writes.get(kv.getKey());
        r.addVars(w == null ? kv : KeyValue.newBuilder().setKey(kv.getKey()).setFound(true).setValue(w).build());
      }
      send(l.getFrom(), r.build());
    }
    return true;
  }

  /**
   * Runs {@code c} on {@code vars} (every key of the command: this partition's and the borrowed), stores the writes to
   * this partition's keys, answers the client; returns every write.
   */
  private Map<String, ByteString> execute(Cmd c, long ts, List<KeyValue> vars, List<Lend> borrowed) {
    Map<String, Optional<ByteString>> read = new TreeMap<>();
    vars.forEach(kv -> read.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue()) : Optional.empty()));
    Invariants.check(read.keySet().equals(c.getLocsMap().keySet()), "dynastar: command %s executes at %s with %s,"
        + " not its keys %s", c.getId(), me, read.keySet(), c.getLocsMap().keySet());
    Map<String, ByteString> writes = c.getProcedure().isEmpty() ? c.getWritesMap()
        : TxnProcedures.run(c.getProcedure(), c.getArgsList(), read);
    executed++;
    for (Map.Entry<String, ByteString> w : new TreeMap<>(writes).entrySet()) {
      if (c.getLocsMap().get(w.getKey()) == me) {
        put(w.getKey(), w.getValue());
      }
    }
    if (hints.size() < HINTS_MAX) {
      hints.add(Keys.newBuilder().addAllKeys(new TreeSet<>(c.getLocsMap().keySet())).build());
    }
    if (rep != null || requests.containsKey(pending(c))) {
      ExecReply.Builder r = ExecReply.newBuilder().setTs(ts).setId(c.getId()).setPartition(me).setSeq(executed);
      for (String k : c.getReadsList()) {
        Optional<ByteString> v = read.get(k);
        r.addReads(KeyValue.newBuilder().setKey(k).setFound(v.isPresent()).setValue(v.orElse(ByteString.EMPTY)));
      }
      new TreeMap<>(writes).forEach((k, v) -> r.addWrites(KeyValue.newBuilder().setKey(k).setFound(true)
          .setValue(v)));
      answer(c, r.build());
    }
    return writes;
  }

  private void retry(Cmd c) {
    ctx.metrics().count("dynastar.retries");
    answer(c, ExecReply.newBuilder().setRetry(true).setId(c.getId()).setPartition(me).build());
  }

  private Pending pending(Cmd c) {
    return rep == null ? new Pending(0, c.getId()) : new Pending(c.getClient(), c.getReq());
  }

  /** Answers {@code c}'s client if this replica holds its request; replicated, keeps the reply for repeats. */
  private void answer(Cmd c, ExecReply r) {
    if (rep != null) {
      clients.answered(c.getClient(), c.getReq(), r);
    }
    Request<ExecReq> req = requests.remove(pending(c));
    if (req != null) {
      req.reply(r);
    }
  }

  /** Replicated: a repeat of a request the group delivered before is answered with the first copy's reply. */
  private void answerRepeat(Cmd c) {
    ctx.metrics().count("dynastar.repeats");
    Request<ExecReq> req = requests.remove(pending(c));
    if (req == null) {
      return;
    }
    ExecReply r = clients.answer(c.getClient(), c.getReq());
    if (r != null) {
      req.reply(r);
    } else {
      // the session had its answer (its low-water mark passed the number): this copy's call was given up on
      req.fail("dynastar: partition " + me + " no longer keeps its reply to request " + c.getReq() + " of this"
          + " session, which the session already received. Fix: none needed (a late copy of an answered request)");
    }
  }

  private List<KeyValue> values(List<String> keys) {
    List<KeyValue> out = new ArrayList<>(keys.size());
    for (String k : keys) {
      if (rep != null) {
        out.add(data.getOrDefault(k, KeyValue.newBuilder().setKey(k).setFound(false).build()));
        continue;
      }
      Optional<Record> r = store.newest(k);
      out.add(KeyValue.newBuilder().setKey(k).setFound(r.isPresent())
          .setValue(r.map(Record::getValue).orElse(ByteString.EMPTY)).build());
    }
    return out;
  }

  /** Writes {@code key}'s new value and drops its older versions (only the newest is ever read). */
  private void put(String key, ByteString value) {
    if (rep != null) {
      ver++;
      data.put(key, KeyValue.newBuilder().setKey(key).setFound(true).setValue(value).build());
      return;
    }
    store.put(key, Record.newBuilder().setValue(value).setVer(++ver).build());
    store.prune(key, r -> true);
  }

  private void install(KeyValue kv) {
    if (kv.getFound()) {
      put(kv.getKey(), kv.getValue());
    } else {
      boolean none = rep != null ? !data.containsKey(kv.getKey()) : store.newest(kv.getKey()).isEmpty();
      Invariants.check(none, "dynastar: partition %s got variable %s as never"
          + " written, but holds a value of it", me, kv.getKey());
    }
  }

  // ------------------------------------------------------------------------------------------------ borrowing

  private void onLend(Lend l) {
    for (KeyValue kv : l.getVarsList()) {
      Invariants.check(!holds(kv.getKey()), "dynastar: partition %s lent variable %s to partition %s, which holds"
          + " it too", l.getFrom(), kv.getKey(), me);
    }
    List<Lend> got = lends.computeIfAbsent(l.getCmd(), x -> new ArrayList<>());
    Invariants.check(got.stream().noneMatch(x -> x.getFrom() == l.getFrom()), "dynastar: partition %s lent twice"
        + " for command %s", l.getFrom(), l.getCmd());
    got.add(l);
  }

  private void onReturn(Return r) {
    if (lenderNoWait) {
      // the mutant: it went on with its variables, and now overwrites them with what comes back
      r.getVarsList().stream().filter(kv -> kv.getFound() && holds(kv.getKey())).forEach(this::install);
      return;
    }
    Invariants.check(r.getCmd() == blocked, "dynastar: partition %s got variables of command %s back while it waits"
        + " for command %s", me, r.getCmd(), blocked);
    List<String> back = r.getVarsList().stream().map(KeyValue::getKey).toList();
    Invariants.check(back.equals(lent), "dynastar: partition %s lent %s for command %s, got back %s", me, lent,
        r.getCmd(), back);
    r.getVarsList().forEach(this::install);
    blocked = 0;
    lent.clear();
  }

  // ------------------------------------------------------------------------------------------------ plans

  private void apply(Plan p) {
    Invariants.check(p.getId() > plan, "dynastar: partition %s applies plan %s after plan %s", me, p.getId(), plan);
    plan = p.getId();
    TreeMap<Integer, List<String>> out = new TreeMap<>();
    for (Map.Entry<String, Integer> m : new TreeMap<>(p.getMovesMap()).entrySet()) {
      String k = m.getKey();
      int to = m.getValue();
      if (to != me) {
        if (holds(k)) {
          out.computeIfAbsent(to, x -> new ArrayList<>()).add(k);
        } else if (expected.containsKey(k)) {
          expected.put(k, to); // on its way here: goes on to `to` when it arrives
        }
      } else if (!holds(k)) {
        expected.put(k, me);
      }
    }
    out.forEach((to, keys) -> {
      Move.Builder m = Move.newBuilder().setPlan(plan).setFrom(me).addAllVars(values(keys));
      keys.forEach(k -> setHeld(k, false));
      ctx.metrics().record("dynastar.moved", keys.size());
      send(to, m.build());
    });
    for (Iterator<Move> it = moves.iterator(); it.hasNext(); ) {
      Move m = it.next();
      if (m.getPlan() <= plan) {
        it.remove();
        arrive(m);
      }
    }
  }

  private void onMove(Move m) {
    if (m.getPlan() > plan) {
      moves.add(m); // sent under a plan not applied here yet
    } else {
      arrive(m);
    }
  }

  /** Variables of a move under a plan applied here: installed, or forwarded where a later plan gave them. */
  private void arrive(Move m) {
    TreeMap<Integer, List<KeyValue>> forward = new TreeMap<>();
    for (KeyValue kv : m.getVarsList()) {
      Integer to = expected.remove(kv.getKey());
      Invariants.check(to != null, "dynastar: partition %s got variable %s from partition %s (plan %s), which no"
          + " plan applied here sends it", me, kv.getKey(), m.getFrom(), m.getPlan());
      if (to == me) {
        Invariants.check(!holds(kv.getKey()), "dynastar: partition %s got variable %s it holds already", me,
            kv.getKey());
        setHeld(kv.getKey(), true);
        install(kv);
      } else {
        forward.computeIfAbsent(to, x -> new ArrayList<>()).add(kv);
      }
    }
    forward.forEach((to, vars) -> send(to, Move.newBuilder().setPlan(plan).setFrom(me).addAllVars(vars).build()));
  }

  // ------------------------------------------------------------------------------------------------ sending

  /** Lends, returns and moves: to the partition's server, or (replicated) through the group's outbox. */
  private void send(int to, Lend m) {
    if (rep != null) {
      rep.post(to, Cast.newBuilder().setLend(m));
    } else {
      ctx.send(NodeId.of(0, to), m);
    }
  }

  private void send(int to, Return m) {
    if (rep != null) {
      rep.post(to, Cast.newBuilder().setRet(m));
    } else {
      ctx.send(NodeId.of(0, to), m);
    }
  }

  private void send(int to, Move m) {
    if (rep != null) {
      rep.post(to, Cast.newBuilder().setMove(m));
    } else {
      ctx.send(NodeId.of(0, to), m);
    }
  }

  // ------------------------------------------------------------------------------------------------ hints

  /**
   * Sends the oracle the keys of the commands executed since the last hint (replicated: the leader, to every oracle
   * replica).
   */
  private void hint() {
    if (hints.isEmpty()) {
      return;
    }
    if (rep == null) {
      ctx.send(NodeId.of(0, oracle), Hint.newBuilder().addAllCmds(hints).build());
    } else if (rep.isLeader()) {
      Hint h = Hint.newBuilder().addAllCmds(hints).build();
      Groups.of(ctx.topology(), oracle).forEach(n -> ctx.send(n, h));
    }
    hints.clear();
  }
}
