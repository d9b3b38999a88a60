package org.kvlab.consensus.multicast;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.NodeId;
import org.kvlab.api.Server;
import org.kvlab.consensus.raft.JournalEntry;
import org.kvlab.testing.kit.Seq;

/**
 * A replica of one group of {@link ReplicatedMulticastTestProtocol}. Groups: with {@code layout} {@code replicas}
 * (default) group p is {@code topology().replicasOf(0, p)} (1 datacenter x P partitions x R replicas), with
 * {@code datacenters} it is partition p's server in every datacenter (R datacenters x P partitions, so the
 * simulator's partitions between datacenters cut groups). While it leads its group, a replica multicasts, one
 * proposal at a time, every 1 to {@code spacingMicros} µs (default 100,000), to 1 to {@code fanout} random groups
 * (default 3), until its group has applied {@code multicasts} (default 40). Its application state is the sequence of
 * ids it delivered, kept in the group's snapshots; {@code snapshotEvery} (default 1000) is the group's. Tests:
 * {@code mutant} {@code vote-before-commit} makes leaders act on a received send before their group committed it,
 * {@code no-resend} makes a new leader skip what was outstanding when it took over; {@code watchGroup} and {@code watchAfterMicros} record
 * the first vote a leader of that group commits after that time, and {@code muteNode}/{@code muteAtMicros} make that
 * leader send nothing from then on (it crashes next, by the test's fault).
 */
final class ReplicatedMulticastTestServer extends Server<JournalEntry> implements ReplicatedMulticast.AppState {
  private final CastRecorder recorder;
  ReplicatedMulticast<Seq> cast;
  private int group;
  private final List<Long> sequence = new ArrayList<>();
  private int multicasts;
  private long spacingMicros;
  private int fanout;
  private boolean proposing;

  ReplicatedMulticastTestServer(CastRecorder recorder) {
    this.recorder = recorder;
  }

  @Override
  protected void register(Handlers on) {
    group = partition();
    boolean acrossDcs = params().string("layout", "replicas").equals("datacenters");
    List<List<NodeId>> groups = new ArrayList<>();
    for (int p = 0; p < topology().partitions(); p++) {
      List<NodeId> members = new ArrayList<>();
      if (acrossDcs) {
        for (int d = 0; d < topology().datacenters(); d++) {
          members.add(topology().node(d, p));
        }
      } else {
        members.addAll(topology().replicasOf(0, p));
      }
      groups.add(members);
    }
    ReplicatedMulticast.Settings settings = ReplicatedMulticast.Settings.of(group, groups)
        .withSnapshotEvery(params().intValue("snapshotEvery", 1000));
    cast = new ReplicatedMulticast<>(context(), settings, Seq.parser(), ReplicatedMulticastTestProtocol.FORMAT,
        this::delivered, this);
    cast.register(on);
  }

  @Override
  protected void onStart() {
    recorder.live.put(self(), this);
    if (recorder.epochMicros < 0) {
      recorder.epochMicros = nowMicros();
    }
    multicasts = params().intValue("multicasts", 40);
    spacingMicros = params().intValue("spacingMicros", 100_000);
    fanout = Math.min(params().intValue("fanout", 3), topology().partitions());
    switch (params().string("mutant", "none")) {
      case "vote-before-commit" -> cast.voteBeforeCommit();
      case "no-resend" -> cast.noResend();
      default -> { }
    }
    cast.onMulticastApplied((id, dest, payload) -> recorder.multicastApplied(group, id, dest));
    int watchGroup = params().intValue("watchGroup", -1);
    long watchAfter = params().intValue("watchAfterMicros", 0);
    String muteNode = params().string("muteNode", "");
    long muteAt = params().intValue("muteAtMicros", Integer.MAX_VALUE);
    cast.onSendRecorded((id, to, vote) -> {
      if (vote && group == watchGroup && cast.isLeader() && recorder.watchedLeader == null
          && virtualMicros() >= watchAfter) {
        recorder.watchedLeader = self();
        recorder.watchedId = id;
        recorder.watchedMicros = virtualMicros();
        if (self().toString().equals(muteNode) && virtualMicros() >= muteAt) {
          cast.muteSends();
        }
      }
    });
    cast.start();
    next();
  }

  /** The run's virtual time (the servers' clocks are not skewed in these tests; all start at time 0). */
  private long virtualMicros() {
    return nowMicros() - recorder.epochMicros;
  }

  @Override
  public String role() {
    return cast.raft() == null ? null : cast.raft().role();
  }

  private void next() {
    if (recorder.applied(group) < multicasts) {
      after(Duration.ofNanos(1000 * (1 + random().nextLong(spacingMicros))), this::multicastOne);
    }
  }

  private void multicastOne() {
    if (cast.isLeader() && !proposing && recorder.applied(group) < multicasts) {
      int k = 1 + random().nextInt(fanout);
      TreeSet<Integer> dest = new TreeSet<>();
      while (dest.size() < k) {
        dest.add(random().nextInt(topology().partitions()));
      }
      proposing = true;
      cast.multicast(Seq.newBuilder().setN(random().nextLong()).build(), dest, (id, failure) -> proposing = false);
    }
    next();
  }

  private void delivered(long position, long id, Seq m, long ts) {
    recorder.delivered(self(), position, id);
    if (position <= sequence.size()) {
      if (sequence.get((int) position - 1) != id) {
        recorder.failures.add(self() + " delivers " + id + " again at position " + position + ", which held "
            + sequence.get((int) position - 1));
      }
    } else if (position == sequence.size() + 1) {
      sequence.add(id);
    } else {
      recorder.failures.add(self() + " delivers " + id + " at position " + position + " after " + sequence.size());
    }
  }

  /** What this replica delivered, in order (its application state). */
  List<Long> sequence() {
    return sequence;
  }

  int group() {
    return group;
  }

  @Override
  public ByteString snapshot() {
    ByteBuffer b = ByteBuffer.allocate(8 * sequence.size());
    sequence.forEach(b::putLong);
    return ByteString.copyFrom(b.array());
  }

  @Override
  public void install(ByteString state) {
    sequence.clear();
    ByteBuffer b = state.asReadOnlyByteBuffer();
    while (b.remaining() >= 8) {
      sequence.add(b.getLong());
    }
  }
}
