package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import org.kvlab.wire.Ack;
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Ping;
import org.kvlab.wire.Reply;
import org.kvlab.wire.Request;
import org.junit.jupiter.api.Test;

/** The framing of {@link Wire}: one length-prefixed buffer per frame out, frames parsed straight from the stream in. */
class WireTest {
  private static Frame reply(long id, int bodyBytes) {
    byte[] body = new byte[bodyBytes];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (i * 31 + id);
    }
    return Frame.newBuilder().setReply(Reply.newBuilder().setId(id).setType(3).setBody(ByteString.copyFrom(body))).build();
  }

  private static byte[] framed(Frame f) {
    byte[] b = f.toByteArray();
    ByteBuf out = Unpooled.buffer(4 + b.length);
    out.writeInt(b.length).writeBytes(b);
    return ByteBufUtil.getBytes(out);
  }

  @Test
  void when_framesAreWritten_then_eachIsOneBufferOfItsLengthAndItsBytes() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<Frame> frames = List.of(reply(1, 0), reply(2, 64), reply(3, 70_000),
        Frame.newBuilder().setData(Data.newBuilder().setSeq(7).setType(1).setBody(ByteString.copyFromUtf8("x"))).build());
    for (Frame f : frames) {
      ch.writeOutbound(f);
    }
    for (Frame f : frames) {
      ByteBuf b = ch.readOutbound();
      assertArrayEquals(framed(f), ByteBufUtil.getBytes(b), "frame " + f.getKindCase());
      b.release();
    }
    assertNull(ch.readOutbound(), "one buffer per frame, no separate length header");
    assertFalse(ch.finish());
  }

  @Test
  void when_framesAreWrittenBeforeAFlush_then_theyShareBuffersInOrderAndAWaitedFrameEndsItsBatch() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<Frame> frames = new ArrayList<>();
    for (int i = 0; i < 300; i++) { // about 25 KB in all: several batches of Wire.FrameEncoder.BATCH_BYTES
      frames.add(reply(i, i % 50 == 7 ? Wire.FrameEncoder.SCRATCH_BYTES + i : i * 13 % 160));
    }
    io.netty.channel.ChannelFuture waited = null;
    for (int i = 0; i < frames.size(); i++) {
      if (i == 150) {
        waited = ch.write(frames.get(i)); // a promise someone may wait on
      } else {
        ch.write(frames.get(i), ch.voidPromise());
      }
    }
    assertNull(ch.readOutbound(), "nothing is sent before the flush");
    ch.flushOutbound(); // the flush (the consolidation schedules it: no read in progress), and the tasks it leaves
    ch.runPendingTasks();
    assertTrue(waited.isSuccess(), "the waited frame's promise completes with its buffer");
    ByteBuf all = Unpooled.buffer();
    int buffers = 0;
    for (ByteBuf b; (b = ch.readOutbound()) != null; buffers++) {
      assertTrue(b.readableBytes() <= Wire.FrameEncoder.BATCH_BYTES || b.readableBytes() > Wire.FrameEncoder.SCRATCH_BYTES,
          "a batch is at most BATCH_BYTES: " + b.readableBytes());
      all.writeBytes(b);
      b.release();
    }
    ByteBuf expected = Unpooled.buffer();
    for (Frame f : frames) {
      expected.writeBytes(framed(f));
    }
    assertArrayEquals(ByteBufUtil.getBytes(expected), ByteBufUtil.getBytes(all), "the frames' bytes, in order");
    assertTrue(buffers < 20, "frames share buffers: " + buffers + " buffers for " + frames.size() + " frames");
    assertTrue(buffers >= 6 + 4, "each large frame alone, the waited one ends a batch, batches split: " + buffers);
    // The same bytes parse back into the same frames.
    EmbeddedChannel in = new EmbeddedChannel();
    Wire.install(in.pipeline(), 1 << 20, "test");
    in.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(expected));
    for (Frame f : frames) {
      assertEquals(f, in.readInbound());
    }
    assertFalse(in.finish());
    ch.write(reply(1, 10), ch.voidPromise()); // written, never flushed: dropped (released) on close
    ch.close();
    assertNull(ch.readOutbound(), "an unflushed frame is not sent at close");
    assertFalse(ch.finish());
  }

  @Test
  void when_manySmallFramesArrive_then_theDecodersArrayAndDecoderServeThemOneAfterAnother() {
    EmbeddedChannel ch = requestChannel();
    List<Object> sent = new ArrayList<>();
    ByteBuf stream = Unpooled.buffer();
    for (int i = 0; i < 400; i++) { // about 40 KB: the decoder's array fills and starts again many times
      Data data = Data.newBuilder().setSeq(i).setType(4).setBody(ByteString.copyFrom(new byte[i * 7 % 200])).build();
      if (i % 37 == 5) { // the slow path in between: a frame that is not a request
        Frame f = reply(i, i % 90);
        sent.add(f);
        stream.writeBytes(framed(f));
      } else if (i % 41 == 3) { // a type without parser: the fast path gives up inside the frame
        Frame f = request(i, 7, data);
        sent.add(f);
        stream.writeBytes(framed(f));
      } else {
        sent.add(new Got(i, 1, data));
        stream.writeBytes(framed(request(i, 1, data)));
      }
    }
    while (stream.isReadable()) {
      int n = Math.min(stream.readableBytes(), 1000 + stream.readerIndex() % 777);
      ch.writeInbound(pooledDirect(ByteBufUtil.getBytes(stream.readBytes(n))));
    }
    for (Object expected : sent) {
      assertEquals(expected, ch.readInbound());
    }
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void when_framesArriveInPiecesOnPooledDirectBuffers_then_eachIsParsedOnceWhole() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<Frame> sent = new ArrayList<>();
    ByteBuf stream = Unpooled.buffer();
    for (int i = 0; i < 22; i++) {
      // Small frames go through the decoder's own array, large ones (above FrameEncoder.SCRATCH_BYTES) do not.
      Frame f = reply(i, i < 20 ? i * 37 % 300 : Wire.FrameEncoder.SCRATCH_BYTES + i);
      sent.add(f);
      stream.writeBytes(framed(f));
    }
    // Odd-sized pieces on pooled direct buffers (what a socket read gives): frames straddle the pieces.
    while (stream.isReadable()) {
      int n = Math.min(stream.readableBytes(), 13 + stream.readerIndex() % 50);
      ByteBuf piece = PooledByteBufAllocator.DEFAULT.directBuffer(n);
      stream.readBytes(piece, n);
      ch.writeInbound(piece);
    }
    for (Frame f : sent) {
      Frame got = ch.readInbound();
      assertEquals(f, got);
    }
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void when_aReplyOrAClientsRequestIsEncodedWithoutIntermediateBytes_then_itsBytesAreThoseOfTheGeneratedFrame() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<com.google.protobuf.MessageLite> bodies = List.of(org.kvlab.wire.Ack.getDefaultInstance(),
        org.kvlab.wire.Ack.newBuilder().setSeq(-1).build(),
        Data.newBuilder().setSeq(3).setType(2).setBody(ByteString.copyFrom(new byte[300])).build(),
        Data.newBuilder().setBody(ByteString.copyFrom(new byte[Wire.FrameEncoder.SCRATCH_BYTES + 10])).build());
    long[] ids = {0, 1, 127, 128, Long.MAX_VALUE, -1};
    int[] types = {0, 1, 200, Integer.MAX_VALUE, -1};
    for (var body : bodies) {
      for (long id : ids) {
        for (int type : types) {
          Wire.ReplyFrame f = new Wire.ReplyFrame(id, type, body);
          Frame generated = f.toFrame();
          assertEquals(generated.getSerializedSize(), f.serializedSize());
          ch.writeOutbound(f);
          ByteBuf b = ch.readOutbound();
          assertArrayEquals(framed(generated), ByteBufUtil.getBytes(b), "id " + id + " type " + type + " body " + body);
          b.release();
          Wire.ReplyFrame later = new Wire.ReplyFrame(id); // the server's request object: its body set on reply
          later.body(type, body);
          ch.writeOutbound(later);
          b = ch.readOutbound();
          assertArrayEquals(framed(generated), ByteBufUtil.getBytes(b), "body set later: id " + id + " type " + type);
          b.release();
          Wire.RequestFrame r = new Wire.RequestFrame(id, type, body); // a client's request: Frame.request
          assertEquals(request(id, type, (com.google.protobuf.Message) body), r.toFrame());
          assertEquals(r.toFrame().getSerializedSize(), r.serializedSize());
          ch.writeOutbound(r);
          b = ch.readOutbound();
          assertArrayEquals(framed(r.toFrame()), ByteBufUtil.getBytes(b), "request: id " + id + " type " + type);
          b.release();
        }
      }
    }
    assertFalse(ch.finish());
  }

  @Test
  void when_repliesArriveOnAClientConnection_then_plainOnesAreParsedInPlaceAndTheRestStayFrames() throws Exception {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test").parseReplies(WireTest::testParser, Got::new);
    Data data = Data.newBuilder().setSeq(9).setType(4).setBody(ByteString.copyFrom(new byte[64])).build();
    Ack ack = Ack.newBuilder().setSeq(77).build();
    Frame plainData = Frame.newBuilder().setReply(Reply.newBuilder().setId(300).setType(1).setBody(data.toByteString()))
        .build();
    Frame plainAck = Frame.newBuilder().setReply(Reply.newBuilder().setId(-1).setType(2).setBody(ack.toByteString()))
        .build();
    Frame empty = Frame.newBuilder().setReply(Reply.newBuilder().setId(5).setType(2)).build(); // proto3: no body field
    Frame error = Frame.newBuilder().setReply(Reply.newBuilder().setId(6).setError("no handler for type 9")).build();
    Frame overloaded = Frame.newBuilder().setReply(Reply.newBuilder().setId(7).setType(2).setBody(ack.toByteString())
        .setOverloaded(true)).build();
    Frame unknownType = Frame.newBuilder().setReply(Reply.newBuilder().setId(8).setType(7).setBody(ack.toByteString()))
        .build();
    Frame badBody = Frame.newBuilder().setReply(Reply.newBuilder().setId(9).setType(2)
        .setBody(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff}))).build();
    Frame pong = Frame.newBuilder().setPong(org.kvlab.wire.Pong.newBuilder().setNanos(4)).build();
    ByteBuf stream = Unpooled.buffer();
    for (Frame f : List.of(plainData, plainAck, empty, error, overloaded, unknownType, badBody, pong)) {
      stream.writeBytes(framed(f));
    }
    while (stream.isReadable()) { // pieces that split frames, on pooled direct buffers
      int n = Math.min(stream.readableBytes(), 13);
      ch.writeInbound(pooledDirect(ByteBufUtil.getBytes(stream, stream.readerIndex(), n)));
      stream.skipBytes(n);
    }
    assertEquals(new Got(300, 1, data), ch.readInbound());
    assertEquals(new Got(-1, 2, ack), ch.readInbound());
    assertEquals(new Got(5, 2, Ack.getDefaultInstance()), ch.readInbound());
    // The rest go the slow way, as before the fast path: the client reads the error, the flag, the unknown type
    // or the malformed body from the Frame.
    for (Frame f : List.of(error, overloaded, unknownType, badBody, pong)) {
      assertEquals(f, ch.readInbound());
    }
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void when_aFrameIsNotAValidFrame_then_theDecoderFailsAsMalformedAndDropsTheRest() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    Frame ok = reply(1, 10);
    ByteBuf in = Unpooled.buffer();
    in.writeBytes(framed(ok));
    in.writeInt(3).writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}); // a truncated varint tag
    in.writeBytes(framed(ok));
    DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(in));
    assertInstanceOf(InvalidProtocolBufferException.class, e.getCause());
    assertTrue(Wire.reason(e).startsWith("malformed frame"), Wire.reason(e));
    assertEquals(ok, ch.readInbound(), "the frame before the malformed one is delivered");
    assertNull(ch.readInbound(), "nothing after the malformed frame is parsed");
    ch.finishAndReleaseAll();
  }

  // ---- a server's client connection: requests parsed straight into protocol messages ----

  /** Request bodies of the test: type 1 is a Data message, type 2 an Ack; any other type has no handler. */
  private static com.google.protobuf.Parser<? extends com.google.protobuf.Message> testParser(int type) {
    return type == 1 ? Data.parser() : type == 2 ? Ack.parser() : null;
  }

  /** What the test's request factory makes. */
  private record Got(long id, int type, com.google.protobuf.Message body) {}

  private static EmbeddedChannel requestChannel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test").parseRequests(WireTest::testParser, Got::new);
    return ch;
  }

  private static Frame request(long id, int type, com.google.protobuf.Message body) {
    return Frame.newBuilder().setRequest(Request.newBuilder().setId(id).setType(type).setBody(body.toByteString())).build();
  }

  private static ByteBuf pooledDirect(byte[] bytes) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
    return b.writeBytes(bytes);
  }

  @Test
  void when_requestsArriveOnAClientConnection_then_eachIsParsedWithItsTypesParserStraightFromTheBuffer() {
    EmbeddedChannel ch = requestChannel();
    Data data = Data.newBuilder().setSeq(9).setType(4).setBody(ByteString.copyFrom(new byte[64])).build();
    Ack ack = Ack.newBuilder().setSeq(77).build();
    long[] ids = {0, 1, 300, Long.MAX_VALUE, -1};
    ByteBuf stream = Unpooled.buffer();
    for (long id : ids) {
      stream.writeBytes(framed(request(id, 1, data))).writeBytes(framed(request(id, 2, ack)));
    }
    stream.writeBytes(framed(request(5, 2, Ack.getDefaultInstance()))); // an empty body: proto3 leaves it out
    while (stream.isReadable()) { // pieces that split frames, on pooled direct buffers
      int n = Math.min(stream.readableBytes(), 17);
      ch.writeInbound(pooledDirect(ByteBufUtil.getBytes(stream, stream.readerIndex(), n)));
      stream.skipBytes(n);
    }
    for (long id : ids) {
      Got d = ch.readInbound();
      assertEquals(id, d.id());
      assertEquals(1, d.type());
      assertEquals(data, d.body());
      Got a = ch.readInbound();
      assertEquals(id, a.id());
      assertEquals(2, a.type());
      assertEquals(ack, a.body());
    }
    Got empty = ch.readInbound();
    assertEquals(5, empty.id());
    assertEquals(Ack.getDefaultInstance(), empty.body());
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void when_aFrameIsNotAPlainRequestOfAKnownType_then_itArrivesAsAFrameForTheSlowPath() throws Exception {
    EmbeddedChannel ch = requestChannel();
    Ack ack = Ack.newBuilder().setSeq(77).build();
    Request plain = Request.newBuilder().setId(3).setType(2).setBody(ack.toByteString()).build();
    List<byte[]> bodies = new ArrayList<>();
    // No parser for the type (the server has no handler: it answers "no handler").
    bodies.add(request(3, 7, ack).toByteArray());
    // A body that is not a valid message of its type (the server answers "malformed").
    bodies.add(Frame.newBuilder().setRequest(Request.newBuilder().setId(3).setType(2)
        .setBody(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff}))).build().toByteArray());
    // Not a request at all.
    bodies.add(Frame.newBuilder().setPing(Ping.newBuilder().setNanos(12)).build().toByteArray());
    // Fields out of the generated order (body before type).
    bodies.add(concat(new byte[] {0x2a, (byte) (4 + ack.getSerializedSize() + 2)},
        new byte[] {0x08, 0x03, 0x1a, (byte) ack.getSerializedSize()}, ack.toByteArray(), new byte[] {0x10, 0x02}));
    // An unknown field (31, varint 5) inside the request.
    bodies.add(concat(new byte[] {0x2a, (byte) (plain.getSerializedSize() + 3)}, plain.toByteArray(),
        new byte[] {(byte) 0xf8, 0x01, 0x05}));
    // A second field after the request in the frame (the oneof's request again: merged by the generated code).
    bodies.add(concat(Frame.newBuilder().setRequest(plain).build().toByteArray(),
        Frame.newBuilder().setRequest(Request.newBuilder().setId(4)).build().toByteArray()));
    for (byte[] b : bodies) {
      ch.writeInbound(pooledDirect(concat(new byte[] {0, 0, 0, (byte) b.length}, b)));
    }
    for (byte[] b : bodies) {
      Object got = ch.readInbound();
      assertInstanceOf(Frame.class, got, "the slow path's Frame");
      assertEquals(Frame.parseFrom(b), got);
    }
    assertEquals(4, Frame.parseFrom(bodies.get(5)).getRequest().getId(), "the merge the fast path must not skip");
    assertEquals(2, Frame.parseFrom(bodies.get(3)).getRequest().getType());
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  // ---- peer channels: Data messages written from the protocol message, parsed straight into it ----

  @Test
  void when_aDataFrameIsEncodedWithoutIntermediateBytes_then_itsBytesAreThoseOfTheGeneratedFrame() throws Exception {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<com.google.protobuf.MessageLite> bodies = List.of(Ack.getDefaultInstance(), Ack.newBuilder().setSeq(-1).build(),
        Data.newBuilder().setSeq(3).setType(2).setBody(ByteString.copyFrom(new byte[300])).build(),
        Data.newBuilder().setBody(ByteString.copyFrom(new byte[Wire.FrameEncoder.SCRATCH_BYTES + 10])).build());
    long[] seqs = {0, 1, 127, 128, Long.MAX_VALUE, -1};
    int[] types = {0, 1, 200, Integer.MAX_VALUE, -1};
    for (var body : bodies) {
      for (long seq : seqs) {
        for (int type : types) {
          Wire.DataFrame f = new Wire.DataFrame(seq, type, body);
          Frame generated = f.toFrame();
          assertEquals(Frame.newBuilder().setData(Data.newBuilder().setSeq(seq).setType(type).setBody(body.toByteString()))
              .build(), generated);
          assertEquals(generated.getSerializedSize(), f.serializedSize());
          for (int twice = 0; twice < 2; twice++) { // a resend writes the same bytes
            ch.writeOutbound(f);
            ByteBuf b = ch.readOutbound();
            assertArrayEquals(framed(generated), ByteBufUtil.getBytes(b), "seq " + seq + " type " + type + " body " + body);
            b.release();
          }
          // The frame of a message a durable channel kept as bytes (its outbox).
          Wire.DataFrame kept = new Wire.DataFrame(Data.parseFrom(f.toData().toByteArray()));
          assertEquals(seq, kept.seq());
          ch.writeOutbound(kept);
          ByteBuf b = ch.readOutbound();
          assertArrayEquals(framed(generated), ByteBufUtil.getBytes(b), "kept: seq " + seq + " type " + type);
          b.release();
        }
      }
    }
    assertFalse(ch.finish());
  }

  private static EmbeddedChannel peerChannel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test").parsePeerData(WireTest::testParser, Got::new);
    return ch;
  }

  private static Frame data(long seq, int type, com.google.protobuf.Message body) {
    return Frame.newBuilder().setData(Data.newBuilder().setSeq(seq).setType(type).setBody(body.toByteString())).build();
  }

  @Test
  void when_dataArrivesOnAPeerChannel_then_eachIsParsedWithItsTypesParserStraightFromTheBuffer() {
    EmbeddedChannel ch = peerChannel();
    Data payload = Data.newBuilder().setSeq(9).setType(4).setBody(ByteString.copyFrom(new byte[64])).build();
    Ack ack = Ack.newBuilder().setSeq(77).build();
    long[] seqs = {1, 2, 300, Long.MAX_VALUE, -1};
    ByteBuf stream = Unpooled.buffer();
    for (long seq : seqs) {
      stream.writeBytes(framed(data(seq, 1, payload)));
      stream.writeBytes(framed(data(seq, 2, ack)));
    }
    stream.writeBytes(framed(data(5, 2, Ack.getDefaultInstance()))); // an empty body: proto3 leaves it out
    while (stream.isReadable()) { // pieces that split frames, on pooled direct buffers
      int n = Math.min(stream.readableBytes(), 17);
      ch.writeInbound(pooledDirect(ByteBufUtil.getBytes(stream, stream.readerIndex(), n)));
      stream.skipBytes(n);
    }
    for (long seq : seqs) {
      Got d = ch.readInbound();
      assertEquals(new Got(seq, 1, payload), d);
      Got a = ch.readInbound();
      assertEquals(new Got(seq, 2, ack), a);
    }
    assertEquals(new Got(5, 2, Ack.getDefaultInstance()), ch.readInbound());
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void when_aFrameOnAPeerChannelIsNotPlainDataOfAKnownType_then_itArrivesAsAFrameForTheSlowPath() throws Exception {
    EmbeddedChannel ch = peerChannel();
    Ack ack = Ack.newBuilder().setSeq(77).build();
    List<byte[]> bodies = new ArrayList<>();
    bodies.add(data(3, 7, ack).toByteArray()); // no parser for the type (no handler: the node rejects the channel)
    bodies.add(Frame.newBuilder().setData(Data.newBuilder().setSeq(3).setType(2) // a malformed body
        .setBody(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff}))).build().toByteArray());
    bodies.add(Frame.newBuilder().setPing(Ping.newBuilder().setNanos(12)).build().toByteArray()); // not Data
    bodies.add(request(3, 2, ack).toByteArray()); // a request, not Data
    bodies.add(concat(data(3, 2, ack).toByteArray(), // a second Data in the frame: merged by the generated code
        Frame.newBuilder().setData(Data.newBuilder().setSeq(4)).build().toByteArray()));
    for (byte[] b : bodies) {
      ch.writeInbound(pooledDirect(concat(new byte[] {0, 0, 0, (byte) b.length}, b)));
    }
    for (byte[] b : bodies) {
      Object got = ch.readInbound();
      assertInstanceOf(Frame.class, got, "the slow path's Frame");
      assertEquals(Frame.parseFrom(b), got);
    }
    assertEquals(4, Frame.parseFrom(bodies.get(4)).getData().getSeq(), "the merge the fast path must not skip");
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  private static byte[] concat(byte[]... parts) {
    ByteBuf b = Unpooled.buffer();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return ByteBufUtil.getBytes(b);
  }
}
