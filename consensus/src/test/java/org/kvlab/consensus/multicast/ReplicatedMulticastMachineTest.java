package org.kvlab.consensus.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.consensus.multicast.CastMachine.SendKey;
import org.kvlab.consensus.multicast.proto.CastAcked;
import org.kvlab.consensus.multicast.proto.CastLocal;
import org.kvlab.consensus.multicast.proto.CastOp;
import org.kvlab.consensus.multicast.proto.CastSend;
import org.kvlab.testing.kit.Seq;

/**
 * The replicated state machine of {@link ReplicatedMulticast} alone, one replica per group wired by hand (the log is
 * the order of the calls): outstanding sends until acknowledged, repeats ignored after delivery, ids forgotten once
 * the origin's watermark passes them, and a snapshot that continues where its replica was.
 */
class ReplicatedMulticastMachineTest {
  /** A replica of group g and what it delivered ("id@ts"). */
  static final class Replica {
    final List<String> delivered = new ArrayList<>();
    final CastMachine<Seq> machine;
    long index;

    Replica(int g) {
      machine = new CastMachine<>(g, Seq.parser(), (position, id, m, ts) -> delivered.add(id + "@" + ts), null);
    }

    void apply(CastOp op) {
      machine.apply(++index, op);
    }

    long multicast(List<Integer> dest) {
      apply(CastOp.newBuilder().setMulticast(CastLocal.newBuilder().setPayload(Seq.newBuilder().setN(7).build()
          .toByteString()).addAllDest(dest)).build());
      return machine.idAt(index);
    }
  }

  /** What {@code from}'s leader sends for outstanding send {@code k}, applied by {@code to}; then acknowledged. */
  private static void send(Replica from, SendKey k, Replica to, boolean ack) {
    CastSend s = from.machine.wire(k);
    assertNotNull(s, "outstanding " + k);
    to.apply(CastOp.newBuilder().setReceived(s).build());
    if (ack) {
      from.apply(CastOp.newBuilder().setAcked(CastAcked.newBuilder().setId(k.id()).setGroup(k.group())
          .setVote(k.vote())).build());
    }
  }

  /** Sends (and acknowledges) every outstanding send of {@code from} to {@code to}. */
  private static void flush(Replica from, Replica to) {
    for (SendKey k : new ArrayList<>(from.machine.outstanding().keySet())) {
      send(from, k, to, true);
    }
  }

  @Test
  void when_twoGroupsExchangeDataAndVotes_then_bothDeliverAtOneTimestampAndNothingStaysOutstanding() {
    Replica a = new Replica(0);
    Replica b = new Replica(1);
    long id = a.multicast(List.of(0, 1));
    assertEquals(1, id, "(origin 0 << 40) | sequence 1");
    assertEquals(List.of(new SendKey(id, 1, false), new SendKey(id, 1, true)),
        new ArrayList<>(a.machine.outstanding().keySet()), "the data and a's vote, to group 1");
    flush(a, b); // b gets the data and a's vote (1): b votes 1 too, the final timestamp, and delivers
    assertEquals(List.of(id + "@1"), b.delivered);
    flush(b, a);
    assertEquals(b.delivered, a.delivered);
    assertEquals(0, a.machine.outstanding().size());
    assertEquals(0, b.machine.outstanding().size());
  }

  @Test
  void when_aNewLeaderSendsAgainAfterDelivery_then_theRepeatIsIgnoredAndTheIdForgottenPastTheWatermark() {
    Replica a = new Replica(0);
    Replica b = new Replica(1);
    long id = a.multicast(List.of(1));
    SendKey data = new SendKey(id, 1, false);
    send(a, data, b, false); // b commits the data; a's leader crashes before its acknowledgement commits
    assertEquals(List.of(id + "@1"), b.delivered, "b alone is the destination: delivered at once");
    send(a, data, b, true); // a's next leader sends it again, and it is acknowledged this time
    assertEquals(List.of(id + "@1"), b.delivered, "the repeat is not delivered again");
    assertEquals(1, b.machine.repeats());
    assertEquals(1, b.machine.remembered(), "b remembers the id: a's watermark was 1 on both sends");
    long next = a.multicast(List.of(1));
    send(a, new SendKey(next, 1, false), b, true); // carries a's watermark 2: every destination has message 1
    assertEquals(1, b.machine.remembered(), "message 1 forgotten, message 2 remembered");
    assertEquals(List.of(id + "@1", next + "@3"), b.delivered);
  }

  @Test
  void when_aReplicaInstallsAnotherOnesSnapshotMidway_then_itDeliversWhatThatReplicaDelivers() {
    Replica a = new Replica(0);
    Replica b = new Replica(1);
    long id = a.multicast(List.of(0, 1));
    send(a, new SendKey(id, 1, false), b, true); // b holds the data, waits for a's vote
    List<ByteString> parts = new ArrayList<>();
    b.machine.takeSnapshot(b.index, parts::add);
    Replica c = new Replica(1);
    c.machine.installSnapshot(b.index, parts, false);
    c.index = b.index;
    assertEquals(b.machine.outstanding(), c.machine.outstanding(), "b's vote to group 0 is outstanding at c too");
    send(a, new SendKey(id, 1, true), b, false);
    send(a, new SendKey(id, 1, true), c, true);
    assertEquals(1, b.delivered.size());
    assertEquals(b.delivered, c.delivered);
  }
}
