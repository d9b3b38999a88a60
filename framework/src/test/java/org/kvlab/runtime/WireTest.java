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
import org.kvlab.wire.Data;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Reply;
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
  void when_framesArriveInPiecesOnPooledDirectBuffers_then_eachIsParsedOnceWhole() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<Frame> sent = new ArrayList<>();
    ByteBuf stream = Unpooled.buffer();
    for (int i = 0; i < 20; i++) {
      Frame f = reply(i, i * 37 % 300);
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
  void when_aReplyIsEncodedWithoutIntermediateBytes_then_itsBytesAreThoseOfTheGeneratedFrame() {
    EmbeddedChannel ch = new EmbeddedChannel();
    Wire.install(ch.pipeline(), 1 << 20, "test");
    List<com.google.protobuf.MessageLite> bodies = List.of(org.kvlab.wire.Ack.getDefaultInstance(),
        org.kvlab.wire.Ack.newBuilder().setSeq(-1).build(),
        Data.newBuilder().setSeq(3).setType(2).setBody(ByteString.copyFrom(new byte[300])).build());
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
        }
      }
    }
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
}
