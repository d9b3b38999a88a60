package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.kvlab.runtime.PartialFrames.Rank;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Ping;

/**
 * {@link PartialFrames}, the budget of a server's partly received frames, on decoders of embedded channels: who is
 * closed to make room (lowest rank, then largest), who never is (peers), and that charges are released.
 */
class PartialFramesTest {
  private static final int FRAME_MAX = 10_000;
  /** The smallest budget the cluster file accepts: six frames of 10,000 bytes fit, a seventh does not. */
  private static final int BUDGET = 65_536;

  private final NodeMetrics metrics = new NodeMetrics();
  private final PartialFrames budget = new PartialFrames(BUDGET, FRAME_MAX, "test", metrics);

  private EmbeddedChannel connection(Rank rank) {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.FrameDecoder decoder = Wire.install(ch.pipeline(), rank == Rank.UNAUTHENTICATED ? 4096 : FRAME_MAX, "test");
    decoder.budget(budget);
    decoder.rank = rank;
    return ch;
  }

  /** Declares a frame of {@code length} bytes and sends {@code sent} of them. */
  private static void partial(EmbeddedChannel ch, int length, int sent) {
    ch.writeInbound(Unpooled.buffer(4 + sent).writeInt(length).writeZero(sent));
  }

  @Test
  void when_theBudgetIsExceeded_then_unauthenticatedConnectionsGoFirstThenTheLargestClientsAndNeverPeers() {
    EmbeddedChannel unauth = connection(Rank.UNAUTHENTICATED);
    partial(unauth, 4000, 10);
    EmbeddedChannel small = connection(Rank.CLIENT);
    partial(small, 2000, 10);
    EmbeddedChannel[] clients = new EmbeddedChannel[5];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = connection(Rank.CLIENT);
      partial(clients[i], FRAME_MAX, 100);
    }
    assertEquals(4004 + 2004 + 5 * 10_004, budget.held());
    EmbeddedChannel peer = connection(Rank.TRUSTED);
    partial(peer, FRAME_MAX, 100); // 66,032 > 65,536: the unauthenticated connection's 4,004 make room
    assertFalse(unauth.isOpen(), "a connection not yet authenticated is closed first");
    assertTrue(small.isOpen() && peer.isOpen());
    EmbeddedChannel peer2 = connection(Rank.TRUSTED);
    partial(peer2, FRAME_MAX, 100); // then the largest client (the oldest of equals)
    assertFalse(clients[0].isOpen(), "the oldest of the largest clients is closed next");
    assertTrue(clients[1].isOpen() && small.isOpen(), "only as many as needed are closed");
    assertEquals(2, metrics.counters().get("wire.partialFramesClosed"));
    assertTrue(budget.held() <= BUDGET, budget.held() + " bytes held");

    EmbeddedChannel peer3 = connection(Rank.TRUSTED);
    EmbeddedChannel peer4 = connection(Rank.TRUSTED);
    EmbeddedChannel peer5 = connection(Rank.TRUSTED);
    EmbeddedChannel peer6 = connection(Rank.TRUSTED);
    EmbeddedChannel peer7 = connection(Rank.TRUSTED);
    for (EmbeddedChannel p : new EmbeddedChannel[] {peer3, peer4, peer5, peer6, peer7}) {
      partial(p, FRAME_MAX, 100);
    }
    for (EmbeddedChannel c : clients) {
      assertFalse(c.isOpen(), "peers' frames close every client frame in the way");
    }
    assertFalse(small.isOpen());
    for (EmbeddedChannel p : new EmbeddedChannel[] {peer, peer2, peer3, peer4, peer5, peer6, peer7}) {
      assertTrue(p.isOpen(), "a peer is never closed for the budget, even above it");
    }
    assertEquals(7 * 10_004, budget.held());
  }

  @Test
  void when_onlyHigherRanksHoldTheBudget_then_theNewcomerIsClosedItselfAndTheOthersKeepTheirFrames() {
    EmbeddedChannel[] clients = new EmbeddedChannel[7];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = connection(Rank.CLIENT);
      partial(clients[i], i < 6 ? FRAME_MAX : 5000, 100); // 65,028 bytes in all
    }
    EmbeddedChannel unauth = connection(Rank.UNAUTHENTICATED);
    Wire.PartialFrameBudgetException e = assertThrows(Wire.PartialFrameBudgetException.class,
        () -> partial(unauth, 4000, 10));
    assertTrue(e.getMessage().contains("limits.partialFrameBytesMax = 65536") && e.getMessage().contains("Fix: "),
        e.getMessage());
    for (EmbeddedChannel c : clients) {
      assertTrue(c.isOpen(), "a connection not yet authenticated never closes a client's");
    }
    assertEquals(6 * 10_004 + 5004, budget.held());
  }

  @Test
  void when_aFrameCompletesOrItsConnectionCloses_then_itsChargeIsReleased() {
    EmbeddedChannel client = connection(Rank.CLIENT);
    byte[] frame = Frame.newBuilder().setPing(Ping.newBuilder().setNanos(42)).build().toByteArray();
    client.writeInbound(Unpooled.buffer().writeInt(frame.length).writeBytes(frame, 0, 1));
    assertTrue(budget.held() >= 4 + frame.length, "the declared frame is charged at once");
    client.writeInbound(Unpooled.wrappedBuffer(frame, 1, frame.length - 1));
    assertEquals(Frame.newBuilder().setPing(Ping.newBuilder().setNanos(42)).build(), client.readInbound());
    assertEquals(0, budget.held(), "a completed frame holds nothing");

    partial(client, FRAME_MAX, 5000);
    assertEquals(10_004, budget.held());
    client.close();
    assertEquals(0, budget.held(), "a closed connection holds nothing");
  }

  @Test
  void when_theBudgetIsBelowOneMaximalFrame_then_itIsRaisedToOne() {
    PartialFrames small = new PartialFrames(BUDGET, 1 << 20, "test", metrics);
    assertEquals((1 << 20) + 4, small.max());
  }
}
