package org.kvlab.protocols.m2paxos;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.command.CommandReply;
import org.kvlab.command.CommandRequest;
import org.kvlab.command.Commands;

/**
 * M²Paxos, one replica (Turcu's thesis Algs. 3-6), written with the protocol kit. Every datacenter's one server
 * holds every key; a client's operation is a command proposed at its datacenter's server (the origin), which answers
 * it once it delivered the command itself. Interpretations (docs/protocols.md#m2paxos has them all):
 *
 * <ul>
 *   <li><b>Ownership is a per-object lease</b> (the digest's interpretation 1): the pseudo-code keys Owners and Epoch
 *       by (object, instance), the prose calls ownership a lease that lasts until another node takes it. Here
 *       {@code ObjectState} holds one Rnd, owner and own epoch per object, and a PREPARE covers every instance of
 *       the object from the acquirer's LastDecided + 1 on (Multi-Paxos' phase 1 per object). The owner then gives
 *       each command the next free instance of each object without another prepare, so it can have several
 *       commands in flight on one object; with the per-instance reading it would have to prepare every instance,
 *       and the pseudo-code's {@code LastDecided[l]+1} for every proposal would put concurrent commands at one
 *       instance.
 *   <li><b>Epochs</b> are unique per node: an acquirer picks the next epoch above what it has seen that is its
 *       datacenter modulo N. Epoch 0 belongs to the initial owner ({@code initialOwner=hash}: hash(key) mod N;
 *       {@code leader=d}: d), which proposes in it without a prepare, as a Multi-Paxos leader's first ballot.
 *   <li>The three paths: the owner of every object of a command decides it (ACCEPT, a quorum of ACKACCEPTs,
 *       DECIDE); a single other owner gets it forwarded, and if it is not delivered here within
 *       {@code forwardTimeout} this server acquires (with {@code leader} set: forwards again); otherwise acquisition
 *       ({@link Forcing}), one at a time per server (commands that need one meanwhile wait for it: it often makes
 *       this server their owner), retried after a random backoff when refused.
 *   <li>Delivery: a command is delivered when it is decided at LastDecided + 1 of every object it names; the store
 *       is written in delivery order. A command decided twice (a retried proposal whose first copy was forced) is
 *       applied once ({@link Delivery}).
 *   <li>Catch-up and truncation: every {@code gossip} period a server sends the others its LastDecided of the
 *       objects that changed and of {@link #STATUS_SWEEP} more in turn; a server behind a peer on an object fetches
 *       the decided commands it misses from it; instances that every replica delivered are removed. An instance left
 *       accepted but undecided (its proposer crashed) is recovered by an acquisition of its object with no command
 *       of its own (the owner first, the others later, in datacenter order, none within a failed acquisition's
 *       backoff).
 * </ul>
 */
class M2PaxosServer extends Server<Record> {
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
  /** How long the origin keeps proposing a client's command before answering unknown. */
  static final Duration GIVE_UP = Duration.ofMillis(1_500);
  /** Gossip periods an object may stay blocked before its owner recovers it (others wait more, by rank). */
  static final int STUCK_TICKS = 3;
  static final int CLOSURE_ROUNDS = 8;
  /** Objects whose LastDecided every status carries besides the changed ones, in turn. */
  static final int STATUS_SWEEP = 64;

  private int n;
  private int quorum;
  private int leader;
  private boolean hashOwners;
  private Duration forwardTimeout;
  private Duration backoff;
  private List<NodeId> others;
  private AcceptorLog log;
  private Delivery delivery;
  private long seq;
  private final Map<Long, Request<CommandRequest>> pending = new TreeMap<>();
  private final Map<Long, Long> proposedAt = new TreeMap<>(); // id -> when the client's request came
  private final Map<String, Long> seenEpoch = new TreeMap<>();
  private boolean acquiring;
  private int failedAcquisitions;
  private long recoveryNotBefore; // after a failed acquisition, recoveries wait out a backoff too
  private final Deque<Command> waitingAcquisition = new ArrayDeque<>();
  private final Map<NodeId, Map<String, Long>> peerLast = new TreeMap<>();
  private final Set<String> fetching = new TreeSet<>();
  private final Set<String> changed = new TreeSet<>();
  private final Map<String, long[]> stuck = new TreeMap<>(); // key -> {blocked instance, ticks}
  private String sweep; // the last object the status sweep sent

  @Override
  protected void register(Handlers on) {
    on.request(CommandRequest.class, this::onClient);
    on.message(Propose.class, this::onPropose);
    on.call(Accept.class, this::onAccept);
    on.message(Decide.class, this::onDecide);
    on.call(Prepare.class, this::onPrepare);
    on.message(Status.class, this::onStatus);
    on.call(Fetch.class, this::onFetch);
    Duration gossip = params().duration("gossip", Duration.ofMillis(100));
    Duration idle = gossip.compareTo(Duration.ofSeconds(1)) > 0 ? gossip : Duration.ofSeconds(1);
    on.every(gossip, idle, idle, this::tick);
  }

  @Override
  protected void onStart() {
    M2Paxos.check(params(), topology());
    n = topology().datacenters();
    quorum = n / 2 + 1;
    leader = M2Paxos.leader(params(), topology());
    hashOwners = params().string("initialOwner", "hash").equals("hash");
    forwardTimeout = params().duration("forwardTimeout", Duration.ofSeconds(1));
    backoff = params().duration("backoff", Duration.ofMillis(20));
    others = topology().allNodes().stream().filter(x -> !x.equals(self())).toList();
    log = new AcceptorLog(slotMap("objects", ObjectState.getDefaultInstance()),
        slotMap("instances", Instance.getDefaultInstance()), this::initialState);
    delivery = new Delivery(log, store(), metrics(), slot(Delivered.getDefaultInstance()),
        slotMap("done", Done.getDefaultInstance()), new Delivery.Listener() {
          @Override
          public void advanced(String key) {
            changed.add(key);
          }

          @Override
          public void delivered(Command c, long ts, CommandReply reply) {
            M2PaxosServer.this.delivered(c, ts, reply);
          }
        });
    delivery.tryDeliver(log.objects()); // decided before a crash, not delivered yet
  }

  /** An object nobody touched at this node: owned in epoch 0 by its initial owner, if any. */
  ObjectState initialState(String key) {
    int owner = leader >= 0 ? leader : hashOwners ? Math.floorMod(key.hashCode(), n) : -1;
    return ObjectState.newBuilder().setOwner(owner + 1).setMyEpoch(owner == dc() ? 0 : -1).build();
  }

  /** The objects a client operation accesses (c.LS), sorted. */
  static List<String> objectsOf(CommandRequest op) {
    return Commands.keys(op);
  }

  // ---------------------------------------------------------------------------------------------
  // Coordination phase (Alg. 3)

  private void onClient(Request<CommandRequest> req) {
    if (objectsOf(req.body()).isEmpty()) {
      req.fail("a command needs at least one key. Fix: read or write a key");
      return;
    }
    long id = ((long) (dc() + 1) << 56) | (incarnation() << 36) | ++seq;
    Command c = Command.newBuilder().setId(id).setOp(req.body()).build();
    pending.put(id, req);
    proposedAt.put(id, nowMicros());
    after(GIVE_UP, () -> {
      Request<CommandRequest> r = pending.remove(id);
      proposedAt.remove(id);
      if (r != null) {
        r.unknown("command not delivered within " + GIVE_UP.toMillis() + " ms (it may still be)");
      }
    });
    propose(c);
  }

  /** PROPOSE(c) at this node: the owner path, a forward to the single other owner, or an acquisition. */
  void propose(Command c) {
    if (isDone(c.getId())) {
      return;
    }
    List<String> ls = objectsOf(c.getOp());
    if (ls.stream().allMatch(this::owns)) {
      ownerAccept(c);
      return;
    }
    NodeId to = forwardTarget(ls);
    if (to != null) {
      forward(c, to, 0);
      return;
    }
    acquire(c, Set.copyOf(ls));
  }

  /** Where to forward a command: the leader (Multi-Paxos), or the single other owner of all its objects. */
  private NodeId forwardTarget(List<String> ls) {
    if (leader >= 0) {
      return leader == dc() ? null : topology().node(leader, 0);
    }
    Set<Integer> owners = new TreeSet<>();
    ls.forEach(l -> owners.add(log.object(l).getOwner() - 1));
    int o = owners.iterator().next();
    return owners.size() == 1 && o >= 0 && o != dc() ? topology().node(o, 0) : null;
  }

  private void forward(Command c, NodeId to, int hops) {
    if (!trySend(to, Propose.newBuilder().setCmd(c).setHops(hops + 1).build())) {
      retryLater(c);
      return;
    }
    metrics().count("consensus.forwarded");
    if (pending.containsKey(c.getId())) {
      after(forwardTimeout, () -> {
        if (pending.containsKey(c.getId()) && !isDone(c.getId())) {
          if (leader >= 0) {
            propose(c);
          } else {
            acquire(c, Set.copyOf(objectsOf(c.getOp())));
          }
        }
      });
    }
  }

  /**
   * PROPOSE(c) forwarded here: decide it as its owner; if this node no longer owns all its objects, hand it on once
   * more to the single owner it knows, else acquire (the origin's timeout covers the rest).
   */
  private void onPropose(Propose m, NodeId from) {
    Command c = m.getCmd();
    if (isDone(c.getId())) {
      return;
    }
    List<String> ls = objectsOf(c.getOp());
    if (ls.stream().allMatch(this::owns)) {
      ownerAccept(c);
    } else if (leader >= 0) {
      if (leader == dc()) {
        acquire(c, Set.copyOf(ls));
      }
    } else {
      NodeId to = forwardTarget(ls);
      if (to != null && m.getHops() < 2 && !to.equals(from)) {
        forward(c, to, m.getHops());
      } else {
        acquire(c, Set.copyOf(ls));
      }
    }
  }

  boolean owns(String key) {
    ObjectState s = log.object(key);
    return s.getMyEpoch() >= 0 && s.getRnd() == s.getMyEpoch();
  }

  /** The owner path: c at the next free instance of each of its objects, in the epochs this node owns them in. */
  void ownerAccept(Command c) {
    Command.Builder placed = c.toBuilder().clearPositions();
    Map<String, Long> epochs = new TreeMap<>();
    for (String l : objectsOf(c.getOp())) {
      placed.putPositions(l, Math.max(log.object(l).getLast(), log.maxInstance(l)) + 1);
      epochs.put(l, log.object(l).getMyEpoch());
    }
    Command p = placed.build();
    List<Entry> entries = new ArrayList<>();
    p.getPositionsMap().forEach((l, in) -> entries.add(Entry.newBuilder().setKey(l).setInstance(in).setCmd(p)
        .build()));
    acceptPhase(epochs, entries, ownerAcks(), ok -> {
      if (ok) {
        metrics().count("consensus.fast");
      } else {
        retryLater(c);
      }
    });
  }

  /** How many other replicas must accept the owner's ACCEPT: a quorum with this one. */
  int ownerAcks() {
    return quorum - 1;
  }

  /** After a refused or failed attempt, the origin proposes its command again after a random backoff. */
  private void retryLater(Command c) {
    if (pending.containsKey(c.getId())) {
      after(randomBackoff(), () -> {
        if (pending.containsKey(c.getId())) {
          propose(c);
        }
      });
    }
  }

  /**
   * A random wait, uniform over [0.5, 1.5) times {@code backoff} doubled for each acquisition in a row that failed
   * here (at most 2^5): acquisitions that keep taking objects from each other back off until one finishes.
   */
  private Duration randomBackoff() {
    return Duration.ofNanos((long) (backoff.toNanos() * (1L << Math.min(failedAcquisitions, 5))
        * (0.5 + random().nextDouble())));
  }

  // ---------------------------------------------------------------------------------------------
  // Accept phase (Alg. 4)

  /**
   * ACCEPT(toDecide, ins, eps): accepted here first, then by a quorum; on success DECIDE to all. {@code done} gets
   * whether it was decided.
   */
  void acceptPhase(Map<String, Long> epochs, List<Entry> entries, int needed,
      java.util.function.Consumer<Boolean> done) {
    if (!acceptHere(dc(), epochs, entries)) {
      metrics().count("m2paxos.accept.refusedHere");
      done.accept(false);
      return;
    }
    Accept a = Accept.newBuilder().putAllEpochs(epochs).addAllEntries(entries).build();
    callAll(others, a, AcceptAck.class, needed, CALL_TIMEOUT)
        .onQuorum(acks -> {
          boolean ok = acks.values().stream().allMatch(AcceptAck::getOk);
          acks.values().forEach(x -> see(x.getRndMap()));
          if (ok) {
            decide(entries);
            Decide d = Decide.newBuilder().addAllEntries(entries).build();
            others.forEach(o -> trySend(o, d));
          }
          if (!ok) {
            metrics().count("m2paxos.accept.refused");
          }
          done.accept(ok);
        })
        .onFailure(f -> {
          metrics().count("m2paxos.accept.noQuorum");
          done.accept(false);
        });
  }

  private void onAccept(Request<Accept> req) {
    int from = req.from().map(NodeId::dc).orElse(-1);
    boolean ok = from >= 0 && acceptHere(from, req.body().getEpochsMap(), req.body().getEntriesList());
    AcceptAck.Builder ack = AcceptAck.newBuilder().setOk(ok);
    if (!ok) {
      req.body().getEpochsMap().keySet().forEach(l -> ack.putRnd(l, log.object(l).getRnd()));
    }
    req.reply(ack.build());
  }

  /**
   * The acceptor's rule: all of it if Rnd <= eps on every object and no instance is decided with another command,
   * else nothing. Makes the sender the objects' owner here.
   */
  boolean acceptHere(int from, Map<String, Long> epochs, List<Entry> entries) {
    for (Map.Entry<String, Long> e : epochs.entrySet()) {
      if (log.object(e.getKey()).getRnd() > e.getValue()) {
        return false;
      }
    }
    for (Entry e : entries) {
      Instance i = log.instance(e.getKey(), e.getInstance());
      if (i != null && i.getDecided() && !Forcing.same(i.getCmd(), e.getCmd())) {
        return false;
      }
    }
    for (Map.Entry<String, Long> e : epochs.entrySet()) {
      ObjectState s = log.object(e.getKey());
      ObjectState.Builder b = s.toBuilder().setRnd(e.getValue()).setOwner(from + 1);
      if (from != dc()) {
        b.setMyEpoch(-1);
      }
      log.setObject(e.getKey(), b.build());
    }
    for (Entry e : entries) {
      Instance i = log.instance(e.getKey(), e.getInstance());
      if (e.getInstance() > log.object(e.getKey()).getLast() && (i == null || !i.getDecided())) {
        log.setInstance(e.getKey(), e.getInstance(), Instance.newBuilder().setCmd(e.getCmd())
            .setRdec(epochs.get(e.getKey())).build());
      }
    }
    return true;
  }

  /** Epochs another node holds (from a NACK): the next acquisition here goes above them. */
  private void see(Map<String, Long> rnd) {
    rnd.forEach((l, e) -> seenEpoch.merge(l, e, Math::max));
  }

  // ---------------------------------------------------------------------------------------------
  // Decision phase (Alg. 5)

  void onDecide(Decide m, NodeId from) {
    decide(m.getEntriesList());
  }

  /** DECIDE: each (l, in) takes its command unless decided; decided with another command is a violation. */
  void decide(List<Entry> entries) {
    Set<String> touched = new TreeSet<>();
    for (Entry e : entries) {
      Instance i = log.instance(e.getKey(), e.getInstance());
      if (e.getInstance() <= log.object(e.getKey()).getLast() && (i == null || !i.getDecided())) {
        continue; // delivered here already, and truncated
      }
      if (i != null && i.getDecided()) {
        Invariants.check(Forcing.same(i.getCmd(), e.getCmd()),
            "two commands decided at (%s, %s): %s and %s", e.getKey(), e.getInstance(),
            Forcing.signature(i.getCmd()), Forcing.signature(e.getCmd()));
        continue;
      }
      log.setInstance(e.getKey(), e.getInstance(), Instance.newBuilder().setCmd(e.getCmd()).setDecided(true)
          .setRdec(i == null ? 0 : i.getRdec()).build());
      onDecided(e.getKey(), e.getInstance(), e.getCmd());
      touched.add(e.getKey());
    }
    delivery.tryDeliver(touched);
  }

  /** Hook for tests: called when this replica learns that {@code c} is decided at ({@code key}, {@code in}). */
  void onDecided(String key, long in, Command c) {}

  /** Hook for tests: called after each delivery with this replica's delivery position. */
  void onDelivered(Command c, long ts) {}

  /** How many (object, instance) entries this replica holds (truncation keeps them to what some replica lacks). */
  int heldInstances() {
    return log.instanceCount();
  }

  boolean isDone(long id) {
    return delivery.isDone(id);
  }

  /** Delivery's report: answer the client if this replica is the command's origin. */
  private void delivered(Command c, long ts, CommandReply reply) {
    onDelivered(c, ts);
    Request<CommandRequest> req = pending.remove(c.getId());
    Long at = proposedAt.remove(c.getId());
    if (req != null) {
      metrics().record("consensus.latencyMicros", nowMicros() - at);
      req.reply(reply);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Acquisition phase (Alg. 6)

  /**
   * Acquires {@code objects} for {@code c} (null: recovery of blocked instances): PREPARE in higher epochs, then the
   * accept {@link Forcing} computes. One acquisition at a time; commands that need one meanwhile wait for its end.
   */
  void acquire(Command c, Set<String> objects) {
    if (leader >= 0 && leader != dc()) {
      return; // Multi-Paxos: only the leader acquires (after its own restart)
    }
    if (acquiring) {
      if (c != null && waitingAcquisition.stream().noneMatch(w -> w.getId() == c.getId())) {
        waitingAcquisition.add(c);
      }
      return;
    }
    acquiring = true;
    prepareRound(c, new TreeSet<>(objects), new TreeMap<>(), new TreeMap<>(), new ArrayList<>(), 0);
  }

  private void prepareRound(Command c, Set<String> objects, Map<String, Long> from, Map<String, Long> epochs,
      List<Held> held, int round) {
    Prepare.Builder p = Prepare.newBuilder();
    for (String l : objects) {
      if (!epochs.containsKey(l)) {
        ObjectState s = log.object(l);
        long top = Math.max(s.getRnd(), seenEpoch.getOrDefault(l, 0L));
        long e = top - Math.floorMod(top, n) + dc();
        while (e <= top) {
          e += n;
        }
        from.put(l, s.getLast() + 1);
        epochs.put(l, e);
        log.setObject(l, s.toBuilder().setRnd(e).setMyEpoch(-1).build()); // this node's own promise
        held.addAll(heldHere(l, s.getLast() + 1));
        p.addObjects(PrepareObject.newBuilder().setKey(l).setFrom(s.getLast() + 1).setEpoch(e));
      }
    }
    callAll(others, p.build(), PrepareAck.class, quorum - 1, CALL_TIMEOUT)
        .onQuorum(acks -> {
          acks.values().forEach(a -> see(a.getRndMap()));
          if (!acks.values().stream().allMatch(PrepareAck::getOk)) {
            metrics().count("m2paxos.acquisition.refused");
            endAcquisition(c, false);
            return;
          }
          acks.values().forEach(a -> held.addAll(a.getHeldList()));
          // a later round's from values are newer than the first's: if this node delivered more in between, a
          // command forced across both could look absent where it was delivered and truncated. Start again.
          if (round > 0 && from.entrySet().stream().anyMatch(f -> log.object(f.getKey()).getLast() >= f.getValue())) {
            metrics().count("m2paxos.acquisition.stale");
            endAcquisition(c, false);
            return;
          }
          Forcing.Plan plan = plan(from, held, isDone(c) ? null : c);
          if (!plan.missing().isEmpty()) {
            if (round + 1 >= CLOSURE_ROUNDS) {
              endAcquisition(c, false);
            } else {
              objects.addAll(plan.missing());
              prepareRound(c, objects, from, epochs, held, round + 1);
            }
            return;
          }
          acceptPhase(epochs, plan.entries(), quorum - 1, ok -> {
            if (ok) {
              metrics().count("consensus.slow");
              epochs.forEach((l, e) -> log.setObject(l, log.object(l).toBuilder().setMyEpoch(e).build()));
            }
            endAcquisition(c, ok);
          });
        })
        .onFailure(f -> {
          metrics().count("m2paxos.acquisition.noQuorum");
          endAcquisition(c, false);
        });
  }

  /** SELECT and the accept it leads to ({@link Forcing}), from what the quorum holds. */
  Forcing.Plan plan(Map<String, Long> from, List<Held> held, Command own) {
    return Forcing.select(from, held, this::decidedHere, own);
  }

  private boolean isDone(Command c) {
    return c == null || isDone(c.getId());
  }

  private Command decidedHere(String key, long in) {
    Instance i = log.instance(key, in);
    return i != null && i.getDecided() ? i.getCmd() : null;
  }

  /** What this node holds from instance {@code from} of {@code key} on, as its own ACKPREPARE would say. */
  private List<Held> heldHere(String key, long from) {
    List<Held> out = new ArrayList<>();
    log.from(key, from).forEach((in, i) -> out.add(Held.newBuilder().setKey(key).setInstance(in).setCmd(i.getCmd())
        .setRdec(i.getRdec()).setDecided(i.getDecided()).build()));
    return out;
  }

  /** Ends the acquisition; on success the commands that waited for it are proposed, else they back off too. */
  private void endAcquisition(Command c, boolean ok) {
    acquiring = false;
    failedAcquisitions = ok ? 0 : failedAcquisitions + 1;
    recoveryNotBefore = ok ? 0 : nowMicros() + randomBackoff().toNanos() / 1000;
    if (!ok && c != null) {
      retryLater(c);
    }
    List<Command> waiting = new ArrayList<>(waitingAcquisition);
    waitingAcquisition.clear();
    waiting.forEach(ok ? this::propose : this::retryLater);
  }

  /** PREPARE: promise every object's epoch if all are above Rnd, and tell what is held from {@code from} on. */
  private void onPrepare(Request<Prepare> req) {
    PrepareAck.Builder ack = PrepareAck.newBuilder();
    boolean ok = req.body().getObjectsList().stream().allMatch(o -> log.object(o.getKey()).getRnd() < o.getEpoch());
    for (PrepareObject o : req.body().getObjectsList()) {
      if (ok) {
        log.setObject(o.getKey(), log.object(o.getKey()).toBuilder().setRnd(o.getEpoch()).setMyEpoch(-1).build());
        ack.addAllHeld(heldHere(o.getKey(), o.getFrom()));
      } else {
        ack.putRnd(o.getKey(), log.object(o.getKey()).getRnd());
      }
    }
    req.reply(ack.setOk(ok).build());
  }

  // ---------------------------------------------------------------------------------------------
  // Gossip: catch-up, truncation, recovery of blocked instances

  private void tick() {
    Status.Builder s = Status.newBuilder();
    for (String l : changed) {
      s.putLast(l, log.object(l).getLast());
    }
    changed.clear();
    // and the next STATUS_SWEEP objects in key order, round robin: repairs what a lost status left behind
    java.util.NavigableSet<String> all = log.touched();
    java.util.Iterator<String> it = (sweep == null ? all : all.tailSet(sweep, false)).iterator();
    for (int i = 0; i < STATUS_SWEEP && it.hasNext(); i++) {
      sweep = it.next();
      s.putLast(sweep, log.object(sweep).getLast());
    }
    if (!it.hasNext()) {
      sweep = null;
    }
    if (s.getLastCount() > 0) {
      Status st = s.build();
      others.forEach(o -> trySend(o, st));
    }
    recoverBlocked();
  }

  private void onStatus(Status m, NodeId from) {
    Map<String, Long> last = peerLast.computeIfAbsent(from, x -> new TreeMap<>());
    m.getLastMap().forEach((l, v) -> {
      last.merge(l, v, Math::max);
      long mine = log.object(l).getLast();
      if (v > mine && !fetching.contains(l) && decidedHere(l, mine + 1) == null) {
        fetching.add(l);
        call(from, Fetch.newBuilder().setKey(l).setFrom(mine + 1).setTo(v).build(), FetchReply.class, CALL_TIMEOUT)
            .onReply(r -> {
              fetching.remove(l);
              metrics().record("m2paxos.fetched", r.getDecidedCount());
              decide(r.getDecidedList());
            })
            .onFailure(f -> fetching.remove(l));
      }
      truncate(l);
    });
  }

  /** Removes the instances of {@code l} that every replica delivered (the minimum of their LastDecided). */
  private void truncate(String l) {
    long min = log.object(l).getLast();
    for (NodeId o : others) {
      min = Math.min(min, peerLast.getOrDefault(o, Map.of()).getOrDefault(l, 0L));
    }
    if (min > 0) {
      metrics().record("m2paxos.truncated", log.truncate(l, min));
    }
  }

  private void onFetch(Request<Fetch> req) {
    FetchReply.Builder r = FetchReply.newBuilder();
    String l = req.body().getKey();
    for (long in = req.body().getFrom(); in <= req.body().getTo(); in++) {
      Command c = decidedHere(l, in);
      if (c == null) {
        break;
      }
      r.addDecided(Entry.newBuilder().setKey(l).setInstance(in).setCmd(c));
    }
    req.reply(r.build());
  }

  /**
   * An object whose next instance stays undecided while this node holds a later one (or an accepted value there)
   * for {@link #STUCK_TICKS} periods, and no peer reported having delivered it: acquire it with no command, which
   * forces what was accepted and fills the rest with no-ops. The owner goes first, the others by rank.
   */
  private void recoverBlocked() {
    for (String l : log.objectsWithInstances()) {
      ObjectState s = log.object(l);
      long next = s.getLast() + 1;
      boolean blocked = log.maxInstance(l) >= next && decidedHere(l, next) == null && peerLast.values().stream()
          .noneMatch(p -> p.getOrDefault(l, 0L) >= next);
      if (!blocked) {
        stuck.remove(l);
        continue;
      }
      long[] st = stuck.computeIfAbsent(l, x -> new long[] {next, 0});
      if (st[0] != next) {
        st[0] = next;
        st[1] = 0;
      }
      int rank = Math.floorMod(dc() - (s.getOwner() - 1), n);
      if (++st[1] >= STUCK_TICKS * (1 + rank) && !acquiring && nowMicros() >= recoveryNotBefore) {
        st[1] = 0;
        acquire(null, Set.of(l));
      }
    }
  }

  /** Sends unless the channel is full (the peer is down or slow: gossip and catch-up repair what is lost). */
  private boolean trySend(NodeId to, com.google.protobuf.Message m) {
    try {
      send(to, m);
      return true;
    } catch (BackPressureException e) {
      metrics().count("m2paxos.sendsDropped");
      return false;
    }
  }
}
