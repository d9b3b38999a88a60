package org.kvlab.consensus.multicast;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.kvlab.api.Invariants;
import org.kvlab.consensus.multicast.proto.CastAcked;
import org.kvlab.consensus.multicast.proto.CastLocal;
import org.kvlab.consensus.multicast.proto.CastOp;
import org.kvlab.consensus.multicast.proto.CastSend;
import org.kvlab.consensus.multicast.proto.CastSendState;
import org.kvlab.consensus.multicast.proto.CastState;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.consensus.raft.RaftGroup;

/**
 * The replicated state of one group of a {@link ReplicatedMulticast}, the same at every replica because every replica
 * applies the same log: a copy of {@link SkeenMulticast}, the sequence that numbers this group's multicasts, the
 * outstanding sends (what the copy sent and the destination has not acknowledged: the leader sends them), the
 * watermark of every sending group and the delivered ids still remembered. A replica applies the group's committed
 * operations ({@link #apply}) and takes or installs snapshots of all of it.
 *
 * <p>Repeats: a new leader re-sends every outstanding send, so a group may receive a data or a vote twice. A data
 * or vote of a message the copy still holds goes to the copy (data ignored, votes merge by maximum); one of a message
 * delivered here is ignored: the id is still remembered, or its sequence is below its sender's watermark (every
 * destination then has the data in its log, so this group received it, and no longer holding it, delivered it). A
 * delivered id is forgotten once its sender's watermark passes it.
 *
 * @param <M> the protobuf type of the messages multicast
 */
final class CastMachine<M extends Message> implements RaftGroup.Machine<CastOp> {
  /** Bits of a message id that hold the origin group's sequence; the origin group is above them. */
  static final int SEQ_BITS = 40;
  static final long SEQ_MASK = (1L << SEQ_BITS) - 1;
  /** Ids of the multicasts applied at the newest indexes kept, for the proposer's outcome. */
  private static final int IDS_KEPT = 1024;

  /** One outstanding send: message {@code id}, destination {@code group}, its data or ({@code vote}) this vote. */
  record SendKey(long id, int group, boolean vote) implements Comparable<SendKey> {
    @Override
    public int compareTo(SendKey o) {
      int c = Long.compare(id, o.id);
      if (c == 0) {
        c = Integer.compare(group, o.group);
      }
      return c != 0 ? c : Boolean.compare(vote, o.vote);
    }
  }

  private final int group;
  private final Parser<M> parser;
  private final ReplicatedMulticast.Delivery<M> delivery;
  private final ReplicatedMulticast.AppState app; // null: the application keeps no state in the snapshots
  private SkeenMulticast<M> skeen;
  private long seq;
  private long position;
  private final TreeMap<SendKey, Message> outstanding = new TreeMap<>();
  private final TreeMap<Integer, Long> watermarks = new TreeMap<>();
  private final TreeSet<Long> delivered = new TreeSet<>();
  // not replicated: what the sender has not yet seen, and the ids for the proposer
  private final List<SendKey> added = new ArrayList<>();
  private final List<SendKey> removed = new ArrayList<>();
  private boolean replaced;
  ReplicatedMulticast.MulticastApplied multicastApplied; // tests
  Consumer<SendKey> sendRecorded; // tests
  private long repeats;
  private final Map<Long, Long> idAtIndex = new LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
      return size() > IDS_KEPT;
    }
  };

  CastMachine(int group, Parser<M> parser, ReplicatedMulticast.Delivery<M> delivery, ReplicatedMulticast.AppState app) {
    this.group = group;
    this.parser = parser;
    this.delivery = delivery;
    this.app = app;
    this.skeen = copy();
  }

  private SkeenMulticast<M> copy() {
    return new SkeenMulticast<>(group, parser, this::sent, this::delivered);
  }

  static int origin(long id) {
    return (int) (id >>> SEQ_BITS);
  }

  // ------------------------------------------------------------------------------------------------ the log

  @Override
  public void apply(long index, CastOp op) {
    if (op.hasMulticast()) {
      CastLocal m = op.getMulticast();
      Invariants.check(seq < SEQ_MASK, "multicast: group %s ran out of sequences", group);
      long id = ((long) group << SEQ_BITS) | ++seq;
      idAtIndex.put(index, id);
      if (multicastApplied != null) {
        multicastApplied.applied(id, m.getDestList(), m.getPayload());
      }
      skeen.multicast(id, parse(id, m.getPayload()), m.getDestList());
    } else if (op.hasReceived()) {
      received(op.getReceived());
    } else if (op.hasAcked()) {
      CastAcked a = op.getAcked();
      SendKey k = new SendKey(a.getId(), a.getGroup(), a.getVote());
      if (outstanding.remove(k) != null) {
        removed.add(k);
        forget(group, ownWatermark());
      }
    } else {
      Invariants.check(false, "multicast: group %s applies an empty operation at %s", group, index);
    }
  }

  private void received(CastSend s) {
    int from = s.getFrom();
    long w = watermarks.merge(from, s.getWatermark(), Math::max);
    forget(from, w);
    if (s.hasData()) {
      SkeenData d = s.getData();
      if (delivered.contains(d.getId()) || below(d.getId())) {
        repeats++;
        return;
      }
      skeen.onData(d);
    } else {
      SkeenVote v = s.getVote();
      if (!skeen.holds(v.getId()) && (delivered.contains(v.getId()) || below(v.getId()))) {
        repeats++;
        return;
      }
      skeen.onVote(v);
    }
  }

  /** The copy sends {@code m} to {@code to}: an outstanding send, which the leader will send. */
  private void sent(int to, Message m) {
    SendKey k = m instanceof SkeenVote v ? new SendKey(v.getId(), to, true)
        : new SendKey(((SkeenData) m).getId(), to, false);
    outstanding.put(k, m);
    added.add(k);
    if (sendRecorded != null) {
      sendRecorded.accept(k);
    }
  }

  private void delivered(long id, M message, long ts) {
    position++;
    if (!below(id)) {
      delivered.add(id);
    }
    delivery.deliver(position, id, message, ts);
  }

  /** Whether every destination of message {@code id} has it in its log (its sequence is below its watermark). */
  private boolean below(long id) {
    int o = origin(id);
    long w = o == group ? ownWatermark() : watermarks.getOrDefault(o, 0L);
    return (id & SEQ_MASK) < w;
  }

  /**
   * This group's watermark: the least sequence of its multicasts whose data some destination has not acknowledged,
   * or the next sequence if none.
   */
  long ownWatermark() {
    long lo = (long) group << SEQ_BITS;
    for (SendKey k : outstanding.subMap(new SendKey(lo, Integer.MIN_VALUE, false), true,
        new SendKey(lo | SEQ_MASK, Integer.MAX_VALUE, true), true).keySet()) {
      if (!k.vote()) {
        return k.id() & SEQ_MASK;
      }
    }
    return seq + 1;
  }

  /** Forgets the delivered ids of {@code from} below its watermark {@code w}. */
  private void forget(int from, long w) {
    long lo = (long) from << SEQ_BITS;
    delivered.subSet(lo, true, lo | Math.min(w, SEQ_MASK), false).clear();
  }

  // ------------------------------------------------------------------------------------------------ the sender's view

  /** The outstanding sends, in (id, group, data before vote) order. */
  NavigableMap<SendKey, Message> outstanding() {
    return Collections.unmodifiableNavigableMap(outstanding);
  }

  /** The call that sends outstanding send {@code k} now (with this group's current watermark), or null if acked. */
  CastSend wire(SendKey k) {
    Message m = outstanding.get(k);
    if (m == null) {
      return null;
    }
    CastSend.Builder b = CastSend.newBuilder().setFrom(group).setWatermark(ownWatermark());
    return (m instanceof SkeenVote v ? b.setVote(v) : b.setData((SkeenData) m)).build();
  }

  /** Sends recorded since the last call (the sender starts them if it leads). */
  List<SendKey> drainAdded() {
    List<SendKey> out = List.copyOf(added);
    added.clear();
    return out;
  }

  /** Sends acknowledged since the last call. */
  List<SendKey> drainRemoved() {
    List<SendKey> out = List.copyOf(removed);
    removed.clear();
    return out;
  }

  /** Whether a snapshot replaced the state since the last call (the sender then starts over from the state). */
  boolean drainReplaced() {
    boolean r = replaced;
    replaced = false;
    return r;
  }

  /** The id given to the multicast applied at {@code index} (recent indexes only), or 0. */
  long idAt(long index) {
    Long id = idAtIndex.remove(index);
    return id == null ? 0 : id;
  }

  long position() {
    return position;
  }

  /** Data and votes ignored as repeats, at this replica since it started. */
  long repeats() {
    return repeats;
  }

  /** Delivered ids still remembered (tests: the garbage bound). */
  int remembered() {
    return delivered.size();
  }

  /** Messages received and not delivered (tests). */
  int holding() {
    return skeen.undelivered().size();
  }

  // ------------------------------------------------------------------------------------------------ snapshots

  @Override
  public void takeSnapshot(long index, Consumer<ByteString> parts) {
    CastState.Builder s = CastState.newBuilder().setSkeen(skeen.state()).setSeq(seq).setPosition(position)
        .putAllWatermarks(watermarks).addAllDelivered(delivered);
    outstanding.forEach((k, m) -> {
      CastSendState.Builder o = CastSendState.newBuilder().setGroup(k.group());
      s.addOutstanding(m instanceof SkeenVote v ? o.setVote(v) : o.setData((SkeenData) m));
    });
    parts.accept(s.build().toByteString());
    if (app != null) {
      parts.accept(app.snapshot());
    }
  }

  @Override
  public void installSnapshot(long index, List<ByteString> parts, boolean restored) {
    CastState s;
    try {
      s = CastState.parseFrom(parts.get(0));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("multicast: group " + group + " cannot read its snapshot at " + index + " ("
          + e.getMessage() + "). Fix: every replica must run the same protocol build", e);
    }
    skeen = copy();
    skeen.restore(s.getSkeen());
    seq = s.getSeq();
    position = s.getPosition();
    watermarks.clear();
    watermarks.putAll(s.getWatermarksMap());
    delivered.clear();
    delivered.addAll(s.getDeliveredList());
    outstanding.clear();
    for (CastSendState o : s.getOutstandingList()) {
      if (o.hasVote()) {
        outstanding.put(new SendKey(o.getVote().getId(), o.getGroup(), true), o.getVote());
      } else {
        outstanding.put(new SendKey(o.getData().getId(), o.getGroup(), false), o.getData());
      }
    }
    added.clear();
    removed.clear();
    replaced = true;
    if (app != null) {
      app.install(parts.size() > 1 ? parts.get(1) : ByteString.EMPTY);
    }
  }

  private M parse(long id, ByteString payload) {
    try {
      return parser.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("multicast: group " + group + " cannot read message " + id + " ("
          + e.getMessage() + "). Fix: every replica must run the same protocol build", e);
    }
  }
}
