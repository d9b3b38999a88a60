package org.kvlab.consensus.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Message;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.testing.kit.Seq;

/** The block alone, two groups wired by hand: what CaMu relies on (floor, advanceClock, state and restore). */
class SkeenMulticastTest {
  /** Group g's member, its outgoing messages (to, message) and what it delivered ("id@ts"). */
  static final class Member {
    final ArrayDeque<Object[]> out = new ArrayDeque<>();
    final List<String> delivered = new ArrayList<>();
    SkeenMulticast<Seq> block;

    Member(int g) {
      block = fresh(g);
    }

    SkeenMulticast<Seq> fresh(int g) {
      return new SkeenMulticast<>(g, Seq.parser(), (to, m) -> out.add(new Object[] {to, m}),
          (id, m, ts) -> delivered.add(id + "@" + ts));
    }
  }

  /** Hands every message {@code from} sent so far to {@code to}. */
  private static void flush(Member from, Member to) {
    while (!from.out.isEmpty()) {
      Message m = (Message) from.out.poll()[1];
      if (m instanceof SkeenData d) {
        to.block.onData(d);
      } else {
        to.block.onVote((SkeenVote) m);
      }
    }
  }

  private static Seq seq(long n) {
    return Seq.newBuilder().setN(n).build();
  }

  @Test
  void when_aMessageGoesToItsOwnGroupOnly_then_itIsDeliveredAtOnce() {
    Member a = new Member(0);
    a.block.multicast(1, seq(1), List.of(0));
    assertEquals(List.of("1@1"), a.delivered);
    assertEquals(3, a.block.floor(), "nothing pending: clock + 1, the clock past the final timestamp 1");
    assertEquals(0, a.out.size(), "nothing to send");
  }

  @Test
  void when_twoGroupsVote_then_bothDeliverAtTheLargestProposalAndTheFloorHoldsItBackUntilThen() {
    Member a = new Member(0);
    Member b = new Member(1);
    b.block.advanceClock(10); // b's next proposal is 11: the final timestamp
    a.block.multicast(7, seq(7), List.of(0, 1));
    assertEquals(1, a.block.floor(), "a holds message 7 at its proposal 1");
    assertEquals(List.of(seq(7)), a.block.undelivered());
    flush(a, b); // the data reaches b, which votes 11
    flush(b, a); // b's vote reaches a: final 11
    assertEquals(List.of("7@11"), a.delivered);
    assertEquals(13, a.block.floor(), "a's clock passed the final timestamp: its next proposal is above it");
    flush(a, b); // a's vote (1) reaches b
    assertEquals(List.of("7@11"), b.delivered);
  }

  @Test
  void when_aMemberRestartsFromItsSavedState_then_itFinishesWhatItHadStarted() {
    Member a = new Member(0);
    Member b = new Member(1);
    a.block.multicast(5, seq(5), List.of(0, 1));
    b.block.multicast(6, seq(6), List.of(0, 1));
    flush(a, b);
    SkeenMulticast<Seq> restarted = b.fresh(1); // b crashes after this event; its saved state is restored
    restarted.restore(b.block.state());
    b.block = restarted;
    flush(b, a);
    flush(a, b);
    assertEquals(a.delivered, b.delivered, "both deliver 5 and 6 in one order");
    assertEquals(2, a.delivered.size());
  }
}
