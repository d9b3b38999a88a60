package org.kvlab.sim;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.ClientContext;
import org.kvlab.api.Clock;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Params;
import org.kvlab.api.ReadOnlyTransactions;
import org.kvlab.api.Topology;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.slf4j.Logger;
import org.slf4j.helpers.NOPLogger;

/** A client session: the protocol's Client over a virtual-time ClientContext, closed loop. */
final class SimSession implements ClientContext {
  private final Simulation sim;
  final int id;
  /** The datacenter of the session's current operation: its home, or another for a remote operation. */
  int dc;
  final int home;
  final Workload.KeyChooser keys;
  final Client client;
  final Random sessionRandom;
  final Clock clock = new Clock() {
    @Override
    public long millis() {
      return Simulation.EPOCH_MILLIS + sim.clockNow() / 1000;
    }

    @Override
    public long micros() {
      return Simulation.EPOCH_MILLIS * 1000L + sim.clockNow();
    }
  };
  int issued;

  SimSession(Simulation sim, int id, int dc, Workload.KeyChooser keys) {
    this.sim = sim;
    this.id = id;
    this.dc = dc;
    this.home = dc;
    this.keys = keys;
    this.sessionRandom = new SimRandom(sim.random.nextLong());
    this.client = sim.protocol.newClient();
    Workload.Objects objects = sim.spec.workload().objects();
    if (keys != null && objects != null && objects.complexRatio() > 0
        && !(client instanceof org.kvlab.api.Transactions)) {
      throw new IllegalArgumentException("the workload has complex (multi-object) commands, but the protocol's client "
          + client.getClass().getSimpleName() + " does not offer Transactions. Fix: set the complex-command share to 0"
          + " or use a protocol with transactions");
    }
    sim.sessions.add(this);
    client.bind(this);
  }

  String name() {
    return "s" + id + "@dc" + dc;
  }

  /** Issues the next workload operation, or stops when the workload's time is over (closed loop). */
  void next() {
    if (sim.now >= sim.spec.durationMicros() || sim.stopped) {
      return;
    }
    issue(this::thinkThenNext);
  }

  /** Issues one workload operation now; {@code then} runs when it completes. */
  void issue(Runnable then) {
    Workload w = sim.spec.workload();
    if (w.objects() != null) {
      issueObjects(w.objects(), w.getRatio(), then);
      return;
    }
    if (w.remoteRatio() > 0 && sim.spec.topology().datacenters() > 1) {
      // a session that switches datacenters: this operation at another one, the next back home (or away again)
      dc = home;
      if (sessionRandom.nextDouble() < w.remoteRatio()) {
        int other = sessionRandom.nextInt(sim.spec.topology().datacenters() - 1);
        dc = other >= home ? other + 1 : other;
      }
    }
    double u = sessionRandom.nextDouble();
    if (w.custom() != null) {
      CompletableFuture<?> custom = w.custom().maybeStart(client, sessionRandom, keys);
      if (custom != null) {
        custom.whenComplete((r, e) -> then.run());
        return;
      }
    }
    if (w.txn().ratio() > 0 && client instanceof org.kvlab.api.Transactions
        && sessionRandom.nextDouble() < w.txn().ratio()) {
      txn(randomTxn(w.txn()), then);
    } else if (u < w.rotxRatio() && client instanceof ReadOnlyTransactions) {
      rotx(keys.distinct(sessionRandom, w.rotxKeys()), then);
    } else if (sessionRandom.nextDouble() < w.getRatio()) {
      get(keys.next(sessionRandom), then);
    } else {
      String key = keys.next(sessionRandom);
      put(key, ByteString.copyFromUtf8("s" + id + "." + (issued + 1) + "#" + (sim.valueCounter++)), then);
    }
  }

  /** One command of the consensus workload ({@link Workload.Objects}): complex (multi-object) or single-object. */
  private void issueObjects(Workload.Objects o, double getRatio, Runnable then) {
    int dcs = sim.spec.topology().datacenters();
    if (o.complexRatio() > 0 && sessionRandom.nextDouble() < o.complexRatio()) {
      List<String> keyList = new ArrayList<>();
      for (int k : o.drawSpread(sessionRandom, home, dcs, o.complexObjects())) {
        keyList.add(o.key(k, dcs));
      }
      Map<String, ByteString> writes = new TreeMap<>();
      for (String k : keyList) {
        writes.put(k, payload(o));
      }
      txn(org.kvlab.api.TxnRequest.of(keyList, writes), then);
      return;
    }
    String key = o.key(o.draw(sessionRandom, home, dcs), dcs);
    if (sessionRandom.nextDouble() < getRatio) {
      get(key, then);
    } else {
      put(key, payload(o), then);
    }
  }

  private ByteString payload(Workload.Objects o) {
    long counter = sim.valueCounter++;
    return ByteString.copyFromUtf8(o.payload("s" + id + "." + (issued + 1) + "#" + counter, counter));
  }

  private void thinkThenNext() {
    long think = sim.spec.workload().thinkMicros() == 0 ? 0 : sessionRandom.nextLong(sim.spec.workload().thinkMicros() + 1);
    sim.at(sim.now + think, this::next);
  }

  void runScript(List<Script.Step> steps, int i) {
    if (i >= steps.size() || sim.stopped) {
      sim.scriptsRunning--;
      return;
    }
    Runnable next = sim.control == null || i + 1 >= steps.size() ? () -> runScript(steps, i + 1)
        : () -> sim.control.invoke(name(), () -> runScript(steps, i + 1)); // controlled: invoking is a choice
    Script.Step step = steps.get(i);
    if (step instanceof Script.Step.Put p) {
      put(p.key(), ByteString.copyFromUtf8(p.value()), next);
    } else if (step instanceof Script.Step.Get g) {
      get(g.key(), next);
    } else if (step instanceof Script.Step.Rotx r) {
      rotx(r.keys(), next);
    } else if (step instanceof Script.Step.Txn t) {
      if (!(client instanceof org.kvlab.api.Transactions)) {
        throw new IllegalArgumentException("script runs a transaction in session " + name() + ", but the protocol's"
            + " client offers no transactions. Fix: script puts and gets, or use a protocol with transactions");
      }
      txn(t.request(), next);
    } else if (step instanceof Script.Step.Pause p) {
      sim.at(sim.now + p.micros(), next);
    } else if (step instanceof Script.Step.AwaitValue a) {
      await(a, sim.now + a.giveUpAfterMicros(), next);
    } else if (step instanceof Script.Step.MoveTo m) {
      if (m.dc() < 0 || m.dc() >= sim.spec.topology().datacenters()) {
        throw new IllegalArgumentException("script moves session " + name() + " to datacenter " + m.dc()
            + ", which the " + sim.spec.topology().datacenters() + "-datacenter topology does not have");
      }
      dc = m.dc(); // the session stays where it is on the network (its home); its operations go to m.dc()
      next.run();
    }
  }

  private void await(Script.Step.AwaitValue a, long giveUp, Runnable next) {
    get(a.key(), () -> {
      Operation last = lastOp;
      boolean seen = last != null && last.ok() && last.readValue().map(v -> v.toStringUtf8().equals(a.value())).orElse(false);
      if (seen || sim.now >= giveUp) {
        next.run();
      } else {
        sim.at(sim.now + a.pollMicros(), () -> await(a, giveUp, next));
      }
    });
  }

  void readAll(List<String> all, int from) {
    if (from >= all.size()) {
      if (--sim.readersPending == 0) {
        sim.done = true;
      }
      return;
    }
    get(all.get(from), () -> readAll(all, from + 1));
  }

  void get(String key, Runnable then) {
    issued++;
    long opId = sim.history.nextId();
    long invoked = sim.now;
    if (sim.trace.enabled()) {
      sim.trace.op(sim.now, name(), "invoke get(" + key + ")", opId);
    }
    invoked(opId, Operation.Type.GET, key, null);
    client.get(key).whenComplete((v, e) -> {
      record(new Operation(opId, id, dc, Operation.Type.GET, key, null,
          e == null ? Map.of(key, v) : null, invoked, sim.now, outcome(e), e == null ? null : message(e)));
      then.run();
    });
  }

  void put(String key, ByteString value, Runnable then) {
    issued++;
    if (sim.writtenKeySet.add(key)) {
      sim.writtenKeys.add(key);
    }
    long opId = sim.history.nextId();
    long invoked = sim.now;
    if (sim.trace.enabled()) {
      sim.trace.op(sim.now, name(), "invoke put(" + key + ")=" + value.toStringUtf8(), opId);
    }
    invoked(opId, Operation.Type.PUT, key, value);
    client.put(key, value).whenComplete((v, e) -> {
      record(new Operation(opId, id, dc, Operation.Type.PUT, key, value, null, invoked, sim.now, outcome(e),
          e == null ? null : message(e)));
      then.run();
    });
  }

  /** A transaction per the workload: partitions by {@link org.kvlab.api.TxnPartners}, keys in each. */
  org.kvlab.api.TxnRequest randomTxn(Workload.Txns t) {
    if (t.workload() != null && t.workload().family() != null) {
      return sim.familyGenerator(t.workload().family()).next(sessionRandom, id, sim.now, sim.valueCounter++);
    }
    if (t.workload() != null) {
      return t.workload().next(sessionRandom, id, sim.keysByPartition(), sim.valueCounter++);
    }
    int n = sim.spec.topology().partitions();
    List<List<String>> byPartition = sim.keysByPartition();
    List<Integer> parts = sim.partners(t).choose(sessionRandom, sessionRandom.nextInt(n), t.partitions());
    List<String> keys = new ArrayList<>();
    for (int p : parts) {
      List<String> in = byPartition.get(p);
      for (int i = 0; i < t.keysPerPartition() && !in.isEmpty(); i++) {
        String k = in.get(sessionRandom.nextInt(in.size()));
        if (!keys.contains(k)) {
          keys.add(k);
        }
      }
    }
    if (sessionRandom.nextDouble() < t.procedureRatio()) {
      return org.kvlab.api.TxnRequest.procedure("add", keys, "1");
    }
    Map<String, ByteString> writes = new TreeMap<>();
    for (String k : keys) {
      writes.put(k, ByteString.copyFromUtf8("s" + id + "." + (issued + 1) + "#" + (sim.valueCounter++)));
    }
    return org.kvlab.api.TxnRequest.of(keys, writes);
  }

  void txn(org.kvlab.api.TxnRequest request, Runnable then) {
    issued++;
    for (String k : request.keys()) {
      if (sim.writtenKeySet.add(k)) {
        sim.writtenKeys.add(k);
      }
    }
    long opId = sim.history.nextId();
    long invoked = sim.now;
    if (sim.trace.enabled()) {
      sim.trace.op(sim.now, name(), "invoke " + request.describe(), opId);
    }
    inFlight.put(opId, new Operation(opId, id, dc, Operation.Type.TXN, null, null, null, sim.now, sim.now,
        Operation.Outcome.INFO, null, new Operation.Txn(request, null)));
    ((org.kvlab.api.Transactions) client).transact(request).whenComplete((r, e) -> {
      record(new Operation(opId, id, dc, Operation.Type.TXN, null, null, e == null ? new TreeMap<>(r.reads()) : null,
          invoked, sim.now, outcome(e), e == null ? null : message(e), new Operation.Txn(request, e == null ? r : null)));
      then.run();
    });
  }

  void rotx(List<String> keyList, Runnable then) {
    issued++;
    long opId = sim.history.nextId();
    long invoked = sim.now;
    if (sim.trace.enabled()) {
      sim.trace.op(sim.now, name(), "invoke rotx" + keyList, opId);
    }
    invoked(opId, Operation.Type.ROTX, null, null);
    ((ReadOnlyTransactions) client).readOnlyTx(keyList).whenComplete((v, e) -> {
      record(new Operation(opId, id, dc, Operation.Type.ROTX, null, null,
          e == null ? new TreeMap<>(v) : null, invoked, sim.now, outcome(e), e == null ? null : message(e)));
      then.run();
    });
  }

  private Operation lastOp;
  /** Operations invoked and not yet completed: id → the operation as invoked. */
  private final java.util.LinkedHashMap<Long, Operation> inFlight = new java.util.LinkedHashMap<>();

  private void invoked(long opId, Operation.Type type, String key, ByteString value) {
    inFlight.put(opId, new Operation(opId, id, dc, type, key, value, null, sim.now, sim.now, Operation.Outcome.INFO, null));
  }

  /** At the end of the run: every operation still without an outcome goes into the sim.history as INFO. */
  void recordUnanswered() {
    for (Operation op : new ArrayList<>(inFlight.values())) {
      record(new Operation(op.id(), id, dc, op.type(), op.key(), op.value(), null, op.invokeMicros(), sim.now,
          Operation.Outcome.INFO, "no answer when the simulation ended at " + Fault.ms(sim.now), op.txn()));
    }
  }

  private void record(Operation op) {
    if (inFlight.remove(op.id()) == null) {
      return; // already recorded (completed after the run was cut short)
    }
    lastOp = op;
    sim.history.add(op);
    if (sim.trace.enabled()) {
      sim.trace.op(sim.now, name(), "complete " + op.describe(), op.id());
    }
  }

  /** The one rule of every sim.history ({@link History#outcomeOf}): the exception's flag, never its words. */
  private Operation.Outcome outcome(Throwable e) {
    return History.outcomeOf(e);
  }

  private String message(Throwable e) {
    return History.errorText(e);
  }

  // ClientContext

  @Override
  public int dc() {
    return dc;
  }

  @Override
  public Topology topology() {
    return sim.spec.topology();
  }

  @Override
  public Params params() {
    return sim.spec.params();
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R extends Message> CompletableFuture<R> call(NodeId server, Message request, Class<R> replyType) {
    CompletableFuture<Message> reply = new CompletableFuture<>();
    sim.types.idOf(request.getClass());
    SimNode target = sim.nodes.get(server);
    if (target == null) {
      throw new IllegalArgumentException("session " + name() + " called " + server + ", which is not a server of the "
          + sim.spec.topology().datacenters() + "x" + sim.spec.topology().partitions()
          + (sim.spec.topology().replicas() > 1 ? "x" + sim.spec.topology().replicas() : "") + " topology");
    }
    if (sim.control != null) { // controlled: the request waits on its link until it is chosen
      long traceId = sim.trace.enabled() ? sim.trace.send(sim.now, name(), server.toString(), request) : -1;
      sim.timeOut(reply, server, request, sim.now + SimSpec.CLIENT_TIMEOUT_MICROS);
      sim.control.message(name(), server.toString(), request,
          () -> arrive(target, target.incarnation, request, reply, traceId), () -> true);
      return typed(reply, server, replyType);
    }
    // Same faults as a server link: latency of the datacenter pair, partitions (wait for the heal).
    // The session sits in its home datacenter: a remote operation crosses the WAN.
    long latency = sim.spec.network().sample(home, server.dc(), sim.random);
    long t = sim.network.wanDelay(home, server.dc(), sim.now, latency);
    long traceId = sim.trace.enabled() ? sim.trace.send(sim.now, name(), server.toString(), request) : -1;
    sim.timeOut(reply, server, request, sim.now + SimSpec.CLIENT_TIMEOUT_MICROS);
    sim.at(t, () -> {
      long cost = sim.spec.network().requestMicros();
      if (cost > 0 && !target.down) { // the server's CPU takes the request in when it is free
        int inc = target.incarnation;
        sim.at(target.occupy(cost), () -> arrive(target, inc, request, reply, traceId));
      } else {
        arrive(target, target.incarnation, request, reply, traceId);
      }
    });
    return typed(reply, server, replyType);
  }

  @SuppressWarnings("unchecked")
  private static <R extends Message> CompletableFuture<R> typed(CompletableFuture<Message> reply, NodeId server,
      Class<R> replyType) {
    return reply.thenApply(r -> {
      if (!replyType.isInstance(r)) {
        throw OperationException.unknown("server " + server + " answered " + r.getClass().getSimpleName()
            + " where " + replyType.getSimpleName() + " was expected");
      }
      return (R) r;
    });
  }

  /** A request reaches {@code target}, which takes it unless it is down or has restarted since it began. */
  private void arrive(SimNode target, int incarnation, Message request, CompletableFuture<Message> reply,
      long traceId) {
    if (target.down || target.incarnation != incarnation) {
      sim.trace.drop(traceId, sim.now, "server down");
      return; // lost with the server: the client's timeout answers
    }
    if (target.queues()) { // the service-time model: handled when the server's CPU has served it
      target.serve(request, () -> {
        if (target.down || target.incarnation != incarnation) {
          sim.trace.drop(traceId, sim.now, "server crashed before handling it");
          return; // lost with the server's memory: the client's timeout answers
        }
        sim.deliveries++;
        target.onRequest(request, this, reply, traceId);
      });
      return;
    }
    sim.deliveries++;
    target.onRequest(request, this, reply, traceId);
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public Random random() {
    return sessionRandom;
  }

  @Override
  public Logger log() {
    return NOPLogger.NOP_LOGGER;
  }}
