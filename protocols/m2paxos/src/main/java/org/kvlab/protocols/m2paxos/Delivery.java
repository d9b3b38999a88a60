package org.kvlab.protocols.m2paxos;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.TreeMap;
import org.kvlab.api.Invariants;
import org.kvlab.api.Metrics;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;
import org.kvlab.command.CommandReply;
import org.kvlab.command.Commands;
import org.kvlab.store.VersionedStore;

/**
 * M²Paxos' delivery (Alg. 5, lines 12-16) at one replica: a command is delivered when it is decided at LastDecided + 1
 * of every object it names; delivering it advances LastDecided of each and applies it to the store, in delivery
 * order. A command decided twice (a retried proposal whose first copy an acquisition forced) is applied once: the
 * ids of the last {@link #DONE_WINDOW} deliveries are kept, durably, with the delivery count.
 */
final class Delivery {
  static final long DONE_WINDOW = 100_000;

  /** What a delivery tells the server. */
  interface Listener {
    /** LastDecided of {@code key} advanced. */
    void advanced(String key);

    /** {@code c} was applied as this replica's {@code ts}-th delivery and returned {@code reply}. */
    void delivered(Command c, long ts, CommandReply reply);
  }

  private final AcceptorLog log;
  private final VersionedStore<Record> store;
  private final Metrics metrics;
  private final Slot<Delivered> count;
  private final SlotMap<Done> done;
  private final TreeMap<Long, Long> doneBySeq = new TreeMap<>();
  private final Listener listener;
  private long delivered;

  Delivery(AcceptorLog log, VersionedStore<Record> store, Metrics metrics, Slot<Delivered> count, SlotMap<Done> done,
      Listener listener) {
    this.log = log;
    this.store = store;
    this.metrics = metrics;
    this.count = count;
    this.done = done;
    this.listener = listener;
    delivered = count.get().getCount();
    for (String id : done.keys()) {
      doneBySeq.put(done.get(id).getSeq(), Long.parseLong(id));
    }
  }

  boolean isDone(long id) {
    return done.get(Long.toString(id)) != null;
  }

  /** Delivers every command that is decided at LastDecided + 1 of each of its objects, and what that unblocks. */
  void tryDeliver(Collection<String> start) {
    Deque<String> work = new ArrayDeque<>(start);
    while (!work.isEmpty()) {
      String l = work.poll();
      Instance i = log.instance(l, log.object(l).getLast() + 1);
      if (i == null || !i.getDecided()) {
        continue;
      }
      Command c = i.getCmd();
      boolean ready = c.getPositionsMap().entrySet().stream().allMatch(p -> {
        Instance j = log.instance(p.getKey(), p.getValue());
        return log.object(p.getKey()).getLast() + 1 == p.getValue() && j != null && j.getDecided()
            && Forcing.same(j.getCmd(), c);
      });
      if (ready) {
        deliver(c);
        work.addAll(c.getPositionsMap().keySet());
      }
    }
  }

  /** DELIVER(c): advances LastDecided of each of its objects and applies c to the store (once per id). */
  private void deliver(Command c) {
    c.getPositionsMap().forEach((l, in) -> {
      ObjectState s = log.object(l);
      Invariants.check(s.getLast() + 1 == in, "command %s delivered at (%s, %s), but LastDecided there is %s",
          c.getId(), l, in, s.getLast());
      log.setObject(l, s.toBuilder().setLast(in).build());
      listener.advanced(l);
    });
    if (c.getId() == 0) {
      return; // a no-op
    }
    if (isDone(c.getId())) {
      metrics.count("m2paxos.duplicates");
      return;
    }
    long ts = ++delivered;
    count.set(Delivered.newBuilder().setCount(ts).build());
    done.put(Long.toString(c.getId()), Done.newBuilder().setSeq(ts).build());
    doneBySeq.put(ts, c.getId());
    while (doneBySeq.firstKey() <= ts - DONE_WINDOW) {
      done.remove(Long.toString(doneBySeq.pollFirstEntry().getValue()));
    }
    CommandReply reply = execute(c);
    metrics.count("consensus.delivered");
    listener.delivered(c, ts, reply.toBuilder().setTs(ts).setTid(c.getId()).build());
  }

  /** Reads (before the writes), then the writes (given, or computed by the procedure), in the store. */
  private CommandReply execute(Command c) {
    return Commands.execute(c.getOp(), k -> store.newest(k).map(Record::getValue), (k, v) -> {
      long in = c.getPositionsMap().get(k);
      long before = store.newest(k).map(Record::getInstance).orElse(0L);
      if (before == in) {
        // This very command wrote k before a restart that kept the store's writes but lost the turn's durable maps
        // (on the real runtime they are synced after the store): one command per (object, instance), so not again.
        metrics.count("m2paxos.reapplied");
        return;
      }
      Invariants.check(before < in, "store of %s written out of delivery order: instance %s after %s", k, in, before);
      store.put(k, Record.newBuilder().setValue(v).setInstance(in).build());
      store.prune(k, x -> true);
    }).build();
  }
}
