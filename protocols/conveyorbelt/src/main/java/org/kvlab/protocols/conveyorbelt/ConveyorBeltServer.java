package org.kvlab.protocols.conveyorbelt;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.kvlab.api.Call;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.command.CommandReply;
import org.kvlab.command.CommandRequest;
import org.kvlab.command.Commands;
import org.kvlab.command.KeyValue;
import org.kvlab.partitioning.operations.OperationClass;

/**
 * The Conveyor Belt at one server (seed 004, Alg. 2), written with the protocol kit. The servers are the datacenters'
 * servers (d, 0), in a ring by datacenter number; each holds a full copy of the state in its store.
 *
 * <ul>
 *   <li><b>REQ(o)</b>: the operation's class and server come from the operations file ({@link Classification}).
 *       An operation at the wrong server is <b>redirected</b>: forwarded with the kit to its server, which answers
 *       the client ({@code cb.redirects}; the seed's MAP(q) reply would cost the client a second round trip). C and
 *       L_p are executed at once ({@code cb.commutative}, {@code cb.local}); G_p is queued (Q).
 *   <li><b>The token</b> carries the updates (a global operation's writes with their final values) in the order they
 *       were produced. On receiving it a server drops the updates it produced itself (they have made the full circle:
 *       every other server applied them), applies the others it has not applied yet (per origin, in order), takes a
 *       snapshot Q' of its queue, executes Q' one by one appending each update, answers each client, and passes the
 *       token to the next server. Operations queued after the snapshot wait for the next visit (the seed's snapshot
 *       rule: the token is always passed on, and the server asks for it again, so no one starves).
 *   <li><b>Paused when idle</b> (the seed says only "pause briefly"): a holder that carries no update, has nothing
 *       queued and was asked by no one keeps the token and tells the others ({@link Parked}); nothing moves until a
 *       server queues a global operation and asks the holder ({@link Want}; resent every {@code wakeRetry} to every
 *       server while its queue waits, since a pause notice can be lost or stale). The token carries the servers that
 *       asked ({@code wanted}) and does not pause again before it reached them.
 *   <li><b>Fault tolerance</b> (the seed makes it orthogonal: "each server may be a Paxos group, the token travels over
 *       reliable channels"): kvlab implements the reliable channel and crash-recovery of each server, not a group.
 *       The token is handed on by a call retried until the next server acknowledges; the receiver stores the token
 *       (the kit's durable slot, written at the end of the turn before the acknowledgement leaves) before it
 *       acknowledges, the sender keeps its copy in its slot until the acknowledgement arrives, so a crash and restart
 *       of either loses nothing and a resend is recognised by its hop number (hops only grow: there is one token). The
 *       token is <b>never regenerated</b>: regenerating it safely would need the servers to agree which updates the
 *       lost token carried (some were applied and answered), a consensus the durable hand-off makes unnecessary. The
 *       price: while a server is down or cut off, the token waits for it (global operations stall, local and
 *       commutative ones go on), as in the seed. It needs durability {@code sync} (the simulator's default); with
 *       {@code none} a crash can roll back an acknowledged token. Queued operations of a crashed server are lost with
 *       it (their clients see an unknown outcome).
 *   <li><b>Ids</b>: a reply's tid is server-specific and unique ((datacenter + 1) &lt;&lt; 48 | the server's count
 *       of executions, durable), and values {@code <d>@...} route to server d (server-specific ids,
 *       {@link Classification#route}).
 *   <li><b>Declarations checked at run time</b>: an execution that reads or writes a key its type's templates do not
 *       declare is counted ({@code cb.templateViolations}) and logged (once per type): the classification rests on the
 *       declarations, so the operations file is wrong. The sampled soundness check runs at start and logs what it
 *       finds ({@code cb.unsound}).
 *   <li><b>Execution is sequential</b> (the digest's advice; Eliá runs a token batch in parallel under 2PL): one
 *       operation at a time through a {@link ServiceQueue}, which also models the service time ({@code serviceMicros}).
 *   <li>Other choices: one partitioning parameter per type, so the seed's double-key "L/G" types (RUBiS's bid, buy,
 *       sell; the seed does not say which server executes their global case) are global at the server of their one
 *       parameter ({@code OperationPartitioning}); an operation not declared in the file (plain GET/PUT, other
 *       procedures) is global at the server it arrives at; a local type without parameter runs where it arrives; the reply's reads are the values
 *       before its writes; applying an update takes no service time.
 * </ul>
 */
class ConveyorBeltServer extends Server<Record> {
  static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(2);

  /** A queued global operation. */
  record Queued(Request<CommandRequest> req, Classification.Kind kind) {}

  private int n;
  private Classification classes;
  private ServiceQueue service;
  private Slot<BeltState> slot;
  private BeltState.Builder st;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private boolean processing;
  private boolean parked;
  private NodeId parker;
  private long parkerHop;
  private Call<TokenAck> handOff;
  private Duration handOffRetry;
  private final Set<String> warned = new TreeSet<>();

  @Override
  protected void register(Handlers on) {
    on.request(CommandRequest.class, this::onClient);
    on.call(Token.class, this::onToken);
    on.message(Parked.class, this::onParked);
    on.message(Want.class, this::onWant);
    on.every(params().duration("wakeRetry", Duration.ofMillis(200)), this::tick);
  }

  @Override
  protected void onStart() {
    ConveyorBelt.check(params(), topology());
    n = topology().datacenters();
    classes = Classification.load(params().string("operations", "store"));
    List<String> unsound = classes.soundness(n);
    if (!unsound.isEmpty()) {
      metrics().count("cb.unsound");
      log().warn("operations {}: the classification is not sound on {} servers: {} (and {} more)", classes.source, n,
          unsound.get(0), unsound.size() - 1);
    }
    handOffRetry = params().duration("handOffRetry", Duration.ofMillis(500));
    service = new ServiceQueue(params().longValue("serviceMicros", 0), this::after);
    slot = slot(BeltState.getDefaultInstance());
    st = slot.get().toBuilder();
    if (!st.getInit()) {
      st.setInit(true).setHolding(dc() == 0).setToken(Token.getDefaultInstance());
      save();
    }
    parker = topology().node(0, 0);
    parkerHop = 0;
    after(Duration.ofMillis(1), this::resume);
  }

  /** After a start: hand on the token this server was handing on, or resume the one it holds. */
  private void resume() {
    if (st.getSending()) {
      handOff(st.getToken());
    } else if (st.getHolding() && !processing) {
      release();
    }
  }

  private void save() {
    slot.set(st.build());
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  private void onClient(Request<CommandRequest> req) {
    CommandRequest op = req.body();
    if (op.getReadsCount() == 0 && op.getWritesCount() == 0) {
      req.fail("an operation needs at least one key. Fix: read or write a key");
      return;
    }
    Classification.Kind k = classes.of(op.getProcedure(), op.getArgsList(), n);
    if (k.server() >= 0 && k.server() != dc()) {
      metrics().count("cb.redirects");
      forward(topology().node(k.server(), 0), req, FORWARD_TIMEOUT);
      return;
    }
    if (!needsToken(k)) {
      service.submit(() -> {
        metrics().count(k.cls() == OperationClass.C ? "cb.commutative" : "cb.local");
        answer(req, execute(op, k));
      });
      return;
    }
    queue.add(new Queued(req, k));
    if (st.getHolding() && !processing && !st.getSending()) {
      runSnapshot(); // the token is paused here: take it up
    } else if (!st.getHolding()) {
      want(parker.equals(self()) ? peers() : List.of(parker));
    }
  }

  /** Whether an operation of kind {@code k} runs only under the token (the global ones). */
  boolean needsToken(Classification.Kind k) {
    return k.cls() == OperationClass.G;
  }

  private void answer(Request<CommandRequest> req, CommandReply reply) {
    if (!req.answered()) {
      req.reply(reply);
    }
  }

  /** Runs {@code op} on the store: reads (before the writes), then the writes given or computed by its procedure. */
  private CommandReply execute(CommandRequest op, Classification.Kind k) {
    CommandReply.Builder r = Commands.execute(op, key -> store().newest(key).map(Record::getValue), this::write);
    List<String> undeclared = Classification.undeclared(k, op.getReadsList(),
        r.getWritesList().stream().map(KeyValue::getKey).toList());
    if (!undeclared.isEmpty()) {
      metrics().count("cb.templateViolations");
      if (warned.add(k.type().name())) {
        log().warn("operation {}{} {} outside the templates its type declares in operations {}: the classification"
            + " ({}) rests on them and may be wrong. Fix: declare every key the procedure reads and writes",
            k.type().name(), op.getArgsList(), String.join(", ", undeclared), classes.source, k.cls());
      }
    }
    long ts = st.getExecuted() + 1;
    st.setExecuted(ts);
    save();
    return r.setTs(ts).setTid(((long) (dc() + 1) << 48) | ts).build();
  }

  private void write(String key, ByteString value) {
    long version = store().newest(key).map(Record::getVersion).orElse(0L) + 1;
    store().put(key, Record.newBuilder().setValue(value).setVersion(version).build());
    store().prune(key, x -> true);
  }

  // ---------------------------------------------------------------------------------------------
  // The token

  /** receiveToken(T): retire own updates, apply the others, then execute the queue's snapshot. */
  private void onToken(Request<Token> req) {
    Token t = req.body();
    if (t.getHop() <= st.getHop()) {
      req.reply(TokenAck.newBuilder().setHop(t.getHop()).build()); // a resend of a token accepted before
      return;
    }
    Invariants.check(!st.getHolding() && !processing, "server %s received token hop %s while holding hop %s", self(),
        t.getHop(), st.getToken().getHop());
    if (handOff != null) {
      handOff.cancel(); // the token came round: the copy still being handed on is superseded
      handOff = null;
    }
    Token.Builder kept = Token.newBuilder().setHop(t.getHop()).addAllWanted(t.getWantedList());
    for (Update u : t.getUpdatesList()) {
      if (retire(u)) {
        continue;
      }
      if (u.getSeq() > st.getAppliedOrDefault(u.getOrigin(), 0)) {
        u.getWritesList().forEach(w -> write(w.getKey(), w.getValue()));
        st.putApplied(u.getOrigin(), u.getSeq());
      }
      kept.addUpdates(u);
    }
    st.setHop(t.getHop()).setSending(false).setHolding(true).setToken(kept);
    save();
    if (dc() == 0) {
      metrics().count("cb.tokenRounds");
    }
    req.reply(TokenAck.newBuilder().setHop(t.getHop()).build());
    runSnapshot();
  }

  /** Whether update {@code u} leaves the token here: back at its origin, it has made the full circle. */
  boolean retire(Update u) {
    return u.getOrigin() == dc();
  }

  /** Q' = snapshot(Q): executes what is queued now under the token, then hands the token on. */
  private void runSnapshot() {
    processing = true;
    parked = false;
    Token.Builder t = st.getToken().toBuilder();
    List<Integer> wanted = new ArrayList<>(t.getWantedList());
    wanted.remove((Integer) dc());
    st.setToken(t.clearWanted().addAllWanted(wanted));
    List<Queued> snapshot = new ArrayList<>(queue);
    queue.clear();
    for (Queued q : snapshot) {
      service.submit(() -> executeGlobal(q));
    }
    service.submit(this::release);
  }

  private void executeGlobal(Queued q) {
    metrics().count("cb.global");
    CommandReply r = execute(q.req().body(), q.kind());
    if (r.getWritesCount() > 0) {
      long seq = st.getNextSeq() + 1;
      st.setNextSeq(seq).setToken(st.getToken().toBuilder().addUpdates(Update.newBuilder().setOrigin(dc())
          .setSeq(seq).addAllWrites(r.getWritesList())));
      save();
    }
    answer(q.req(), r);
  }

  /** After a snapshot: pause the token if it has nothing to do, else pass it on (to this server's queue if n = 1). */
  private void release() {
    processing = false;
    Token.Builder t = st.getToken().toBuilder();
    if (n == 1) {
      st.setToken(t.clearUpdates().clearWanted());
      save();
      if (!queue.isEmpty()) {
        runSnapshot();
      }
      return;
    }
    if (t.getUpdatesCount() == 0 && t.getWantedCount() == 0 && queue.isEmpty()) {
      if (!parked) {
        parked = true;
        parker = self();
        parkerHop = t.getHop();
        metrics().count("cb.parks");
        sendToPeers(Parked.newBuilder().setHop(t.getHop()).build());
      }
      return;
    }
    if (!queue.isEmpty() && !t.getWantedList().contains(dc())) {
      t.addWanted(dc()); // queued after the snapshot: the token comes back before it pauses
    }
    Token out = t.setHop(t.getHop() + 1).build();
    st.setHolding(false).setSending(true).setToken(out);
    save();
    handOff(out);
  }

  /** Hands {@code out} to the next server, resent until it acknowledges (a reliable channel over crashes). */
  private void handOff(Token out) {
    NodeId next = topology().node((dc() + 1) % n, 0);
    handOff = call(next, out, TokenAck.class, handOffRetry).retryOnTimeout()
        .onReply(a -> {
          if (st.getSending() && st.getToken().getHop() == a.getHop()) {
            st.setSending(false).setToken(Token.getDefaultInstance());
            save();
          }
        })
        .onFailure(f -> after(handOffRetry, () -> {
          if (st.getSending() && st.getToken().getHop() == out.getHop()) {
            handOff(out);
          }
        }));
  }

  private void onParked(Parked m, NodeId from) {
    if (m.getHop() >= parkerHop) {
      parker = from;
      parkerHop = m.getHop();
    }
    if (!queue.isEmpty() && !st.getHolding()) {
      want(List.of(from));
    }
  }

  /** A server with a queue asks for the token: a holder adds it to the token's wanted list and resumes it if paused. */
  private void onWant(Want m, NodeId from) {
    if (!st.getHolding()) {
      return; // not here: the asker asks again (tick) and learns where the token pauses
    }
    Token.Builder t = st.getToken().toBuilder();
    if (!t.getWantedList().contains(m.getDc())) {
      st.setToken(t.addWanted(m.getDc()));
      save();
    }
    if (!processing) {
      parked = false;
      release();
    }
  }

  private void want(List<NodeId> to) {
    Want w = Want.newBuilder().setDc(dc()).build();
    to.forEach(x -> send(x, w));
  }

  private void tick() {
    if (!queue.isEmpty() && !st.getHolding()) {
      want(peers()); // a pause notice may have been lost or be stale: ask everyone
    }
  }
}
