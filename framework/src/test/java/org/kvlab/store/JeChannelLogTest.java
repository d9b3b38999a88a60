package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.testing.TestRecord;

/** The channel log kept in a JE store's environment: layout, acknowledgement and reopening. */
class JeChannelLogTest {
  @TempDir Path tmp;

  private JeStore<TestRecord> open() {
    return new JeStore<>(VersionedStoreContract.TYPE, tmp.resolve("store"), Durability.SYNC);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void when_messagesAreAppendedAndAcknowledged_then_theOutboxKeepsTheRestInOrderPerPeer() {
    try (JeStore<TestRecord> store = open()) {
      ChannelLog log = store.channelLog();
      for (long seq = 1; seq <= 5; seq++) {
        log.append("0_1", seq, bytes("a" + seq));
        log.append("0_10", seq, bytes("b" + seq)); // a peer id that extends another must not mix
      }
      log.acknowledged("0_1", 3);
      List<ChannelLog.Entry> rest = log.pending("0_1");
      assertEquals(List.of(4L, 5L), rest.stream().map(ChannelLog.Entry::seq).toList());
      assertArrayEquals(bytes("a4"), rest.get(0).message());
      assertEquals(5, log.pending("0_10").size());
      assertEquals(5, log.highWater("0_1"));
      assertEquals(0, log.highWater("1_1"));

      log.acknowledged("0_1", 5);
      assertEquals(List.of(), log.pending("0_1"));
      assertEquals(5, log.highWater("0_1"), "the acknowledged mark keeps the numbering when the outbox is empty");
      assertThrows(IllegalStateException.class, () -> log.append("0_10", 5, bytes("again")));
    }
  }

  @Test
  void when_theStoreIsReopened_then_incarnationOutboxAndDeliveredMarkersAreBack() {
    long incarnation;
    try (JeStore<TestRecord> store = open()) {
      ChannelLog log = store.channelLog();
      incarnation = log.incarnation(() -> 42);
      assertEquals(42, incarnation);
      assertEquals(42, log.incarnation(() -> 7), "generated once");
      log.append("1_0", 1, bytes("m1"));
      log.append("1_0", 2, bytes("m2"));
      log.acknowledged("1_0", 1);
      log.delivered("1_0", 99, 17);
      log.delivered("1_0", 100, 3); // the sender restarted: the marker is replaced
      log.delivered("0_2", 5, 8);
    }
    try (JeStore<TestRecord> store = open()) {
      ChannelLog log = store.channelLog();
      assertEquals(incarnation, log.incarnation(() -> 7));
      assertEquals(List.of(2L), log.pending("1_0").stream().map(ChannelLog.Entry::seq).toList());
      assertEquals(2, log.highWater("1_0"));
      assertEquals(Map.of("1_0", new ChannelLog.Delivered(100, 3), "0_2", new ChannelLog.Delivered(5, 8)),
          log.deliveredMarkers());
      assertEquals(0, store.keyCount(), "the channel log is not part of the versions");
    }
  }

  @Test
  void when_theStoreIsClosed_then_theChannelLogRefusesUse() {
    JeStore<TestRecord> store = open();
    ChannelLog log = store.channelLog();
    store.close();
    assertThrows(IllegalStateException.class, () -> log.append("0_1", 1, bytes("x")));
  }
}
