package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.runtime.PartialFrames.Rank;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Ping;

/**
 * {@link PartialFrames}, the budget of a server's partly received frames, on decoders of embedded channels: who is
 * closed to make room (the largest clients), who never is (peers), the reserve of connections not yet authenticated,
 * and that charges are released.
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
  void when_theBudgetIsExceeded_then_theLargestClientsAreClosedFirstAndNeverPeers() {
    EmbeddedChannel small = connection(Rank.CLIENT);
    partial(small, 2000, 10);
    EmbeddedChannel[] clients = new EmbeddedChannel[6];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = connection(Rank.CLIENT);
      partial(clients[i], FRAME_MAX, 100);
    }
    assertEquals(2004 + 6 * 10_004, budget.held()); // 62,028
    EmbeddedChannel peer = connection(Rank.TRUSTED);
    partial(peer, FRAME_MAX, 100); // 72,032 > 65,536: the oldest of the largest clients makes room
    assertFalse(clients[0].isOpen(), "the oldest of the largest clients is closed first");
    assertTrue(clients[1].isOpen() && small.isOpen() && peer.isOpen(), "only as many as needed are closed");
    EmbeddedChannel client = connection(Rank.CLIENT);
    partial(client, FRAME_MAX, 100); // a client makes room among clients too
    assertFalse(clients[1].isOpen());
    assertTrue(client.isOpen() && clients[2].isOpen());
    assertEquals(2, metrics.counters().get("wire.partialFramesClosed"));
    assertTrue(budget.held() <= BUDGET, budget.held() + " bytes held");

    List<EmbeddedChannel> peers = new ArrayList<>(List.of(peer));
    for (int i = 0; i < 6; i++) {
      EmbeddedChannel p = connection(Rank.TRUSTED);
      partial(p, FRAME_MAX, 100);
      peers.add(p);
    }
    for (EmbeddedChannel c : clients) {
      assertFalse(c.isOpen(), "peers' frames close every client frame in the way");
    }
    assertFalse(small.isOpen() || client.isOpen());
    for (EmbeddedChannel p : peers) {
      assertTrue(p.isOpen(), "a peer is never closed for the budget, even above it");
    }
    assertEquals(7 * 10_004, budget.held());
  }

  @Test
  void when_clientsFillTheBudget_then_connectionsNotYetAuthenticatedStillHaveTheirReserveAndCloseOnlyEachOther() {
    EmbeddedChannel[] clients = new EmbeddedChannel[7];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = connection(Rank.CLIENT);
      partial(clients[i], i < 6 ? FRAME_MAX : 5508, 100); // 65,536 bytes in all: the budget to the byte
    }
    assertEquals(BUDGET, budget.held());
    int fit = (int) (PartialFrames.HANDSHAKE_RESERVE / 4100);
    List<EmbeddedChannel> handshakes = new ArrayList<>();
    for (int i = 0; i < fit; i++) {
      EmbeddedChannel h = connection(Rank.UNAUTHENTICATED);
      partial(h, 4096, 10); // a handshake frame arriving in pieces
      handshakes.add(h);
    }
    for (EmbeddedChannel h : handshakes) {
      assertTrue(h.isOpen(), "a budget full of clients' frames must not keep anyone from connecting");
    }
    EmbeddedChannel one = connection(Rank.UNAUTHENTICATED);
    partial(one, 4096, 10); // over the reserve: the oldest handshake goes, never a client
    assertFalse(handshakes.get(0).isOpen());
    assertTrue(one.isOpen() && handshakes.get(1).isOpen());
    for (EmbeddedChannel c : clients) {
      assertTrue(c.isOpen(), "a connection not yet authenticated never closes a client's");
    }
    assertEquals(BUDGET + fit * 4100L, budget.held());

    EmbeddedChannel client = connection(Rank.CLIENT);
    partial(client, 100, 10); // room among clients only: the largest goes
    assertFalse(clients[0].isOpen());
    assertTrue(handshakes.get(1).isOpen(), "a client never closes a handshake for room: they do not share a pool");
  }

  @Test
  void when_noOneMayBeClosedForIt_then_theNewcomerIsClosedItselfAndTheOthersKeepTheirFrames() {
    EmbeddedChannel[] peers = new EmbeddedChannel[7];
    for (int i = 0; i < peers.length; i++) {
      peers[i] = connection(Rank.TRUSTED);
      partial(peers[i], FRAME_MAX, 100); // 70,028 bytes: above the budget, peers are always admitted
    }
    EmbeddedChannel client = connection(Rank.CLIENT);
    Wire.PartialFrameBudgetException e = assertThrows(Wire.PartialFrameBudgetException.class,
        () -> partial(client, 4000, 10));
    assertTrue(e.getMessage().contains("limits.partialFrameBytesMax = 65536") && e.getMessage().contains("Fix: "),
        e.getMessage());
    for (EmbeddedChannel p : peers) {
      assertTrue(p.isOpen());
    }
    assertEquals(7 * 10_004, budget.held());
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
  void when_aBigFrameArrivesInPieces_then_itsBufferGrowsOnceToTheFrameAndTheFrameParses() {
    PartialFrames big = new PartialFrames(BUDGET, 1 << 20, "test", metrics);
    EmbeddedChannel client = new EmbeddedChannel();
    Wire.FrameDecoder decoder = Wire.install(client.pipeline(), 1 << 20, "test");
    decoder.budget(big);
    decoder.rank = Rank.CLIENT;
    byte[] body = new byte[100_000];
    java.util.Arrays.fill(body, (byte) 7);
    Frame frame = Frame.newBuilder().setData(org.kvlab.wire.Data.newBuilder().setSeq(1).setType(2)
        .setBody(com.google.protobuf.ByteString.copyFrom(body))).build();
    byte[] bytes = frame.toByteArray();
    io.netty.buffer.ByteBuf all = Unpooled.buffer().writeInt(bytes.length).writeBytes(bytes);
    client.writeInbound(all.readRetainedSlice(104));
    assertEquals(4 + bytes.length, big.held(), "charged at its declared size from its length on");
    client.writeInbound(all.readRetainedSlice(4000));
    client.writeInbound(all.readRetainedSlice(86_000));
    // Grown by doubling, 90,104 bytes would sit in a buffer of 131,072, charged as such.
    assertEquals(4 + bytes.length, big.held(), "the buffer grew once, to the frame exactly");
    client.writeInbound(all.readRetainedSlice(all.readableBytes()));
    all.release();
    assertEquals(frame, client.readInbound());
    assertEquals(0, big.held());
  }

  @Test
  void when_theBudgetIsBelowOneMaximalFrame_then_itIsRaisedToOne() {
    PartialFrames small = new PartialFrames(BUDGET, 1 << 20, "test", metrics);
    assertEquals((1 << 20) + 4, small.max());
  }
}
