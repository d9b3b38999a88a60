package org.kvlab.runtime;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.WireFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.kvlab.api.Invariants;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The framing every kvlab connection uses: a 4-byte big-endian length of the body, then the body, one
 * {@link Frame}. A length above the connection's current limit fails fast: the connection is closed
 * before any of the body is read or buffered. The limit is {@code limits.frameBytesMax} once the
 * connection's handshake is done and {@link org.kvlab.config.ClusterConfig.Limits#HANDSHAKE_FRAME_BYTES_MAX}
 * before (on accepted connections).
 *
 * <p><b>TLS seam.</b> Every pipeline is built here, so this is where transport security goes: for links
 * between hosts (the SSH/EC2 deployment) an {@code SslHandler} is added first in the pipeline by
 * {@link #install}, on the server side in {@code Node.listen} and on the connecting side in
 * {@code PeerLink}, {@code ClientRuntime} (and an {@code SSLSocket} in {@code ControlClient}). The
 * challenge-response handshake stays as it is on top (it proves cluster membership; TLS adds
 * confidentiality and protects the established stream from an active attacker on the network). Not
 * implemented yet: all links are plain TCP, which is fine on loopback and trusted networks.
 */
final class Wire {
  private static final Logger LOG = LoggerFactory.getLogger(Wire.class);
  static final int LENGTH_BYTES = 4;
  /**
   * A frame above this many bytes gets a buffer of its whole size at once, and a frame buffer above it that holds less
   * than half of it is replaced by a smaller one (see FrameDecoder's cumulator).
   */
  static final int SHRINK_ABOVE = 64 * 1024;
  /** Longest string from the wire that a log line shows. */
  static final int PRINTABLE_MAX = 200;

  private Wire() {}

  /**
   * Installs the framing with body limit {@code frameBytesMax}; {@code owner} names the local side in
   * log lines (a server id, or "client").
   */
  static FrameDecoder install(ChannelPipeline pipeline, int frameBytesMax, String owner) {
    return install(pipeline, frameBytesMax, owner, null);
  }

  /** {@link #install}; {@code events} (if not null) counts wire.framesTooLarge and wire.truncatedFrames. */
  static FrameDecoder install(ChannelPipeline pipeline, int frameBytesMax, String owner, Consumer<String> events) {
    FrameDecoder decoder = new FrameDecoder(frameBytesMax, owner, events);
    pipeline.addLast("frameDecoder", decoder);
    pipeline.addLast("frameEncoder", new FrameEncoder());
    // After the codec (outbound: before the encoder), so the encoder sees the flushes it lets through: frames written
    // while a read is handled share a buffer (FrameEncoder).
    pipeline.addLast("flush", new FlushConsolidationHandler(256, true));
    return decoder;
  }

  /** A short, human-readable name of a frame's kind, for logs. */
  static String kind(Frame frame) {
    return frame.getKindCase().name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * A string from the wire as a log line may show it: control characters (a newline would forge a
   * log line), quotes and backslashes escaped, non-ASCII as {@code \\uXXXX}, at most 200 characters.
   */
  static String printable(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), PRINTABLE_MAX) + 8);
    for (int i = 0; i < s.length(); i++) {
      if (b.length() >= PRINTABLE_MAX) {
        b.append("...(").append(s.length()).append(" chars)");
        break;
      }
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20 || c >= 0x7f) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }

  /** The cause of a pipeline failure, phrased for the log line that explains a closed connection. */
  static String reason(Throwable cause) {
    Throwable t = cause;
    while (t.getCause() != null && (t instanceof io.netty.handler.codec.DecoderException)) {
      t = t.getCause();
    }
    String name = t.getClass().getSimpleName();
    if (t instanceof TooLongFrameException) {
      return "frame too large (" + t.getMessage() + ")";
    }
    if (t instanceof com.google.protobuf.InvalidProtocolBufferException) {
      return "malformed frame (" + printable(t.getMessage()) + ")";
    }
    if (t instanceof java.io.IOException) {
      return "I/O error (" + t.getMessage() + ")";
    }
    if (t instanceof PartialFrameBudgetException) {
      return t.getMessage();
    }
    return name + ": " + printable(t.getMessage());
  }

  /**
   * Something the {@link FrameEncoder} can write besides a protobuf message: its encoding must be exactly that
   * of a {@link Frame} (the other side parses it as one).
   */
  interface Encodable {
    /** The encoded size in bytes (without the length prefix). */
    int serializedSize();

    /** Writes exactly {@link #serializedSize()} bytes. */
    void writeTo(CodedOutputStream out) throws IOException;
  }

  /**
   * A {@link Frame} holding a {@link Reply} whose body is a protocol message, encoded as the generated code would
   * encode {@code Frame{reply: Reply{id, type, body: body.toByteString()}}} (proto3: fields at their default
   * value are left out), with the body serialized straight into the frame's buffer: no intermediate byte string
   * and none of the four builder and message objects per reply. The server's request object is one (its body set
   * when the protocol replies), so a reply allocates nothing of its own.
   */
  static class ReplyFrame implements Encodable {
    /** The Frame field this frame is: Frame.reply, or Frame.request for a {@link RequestFrame}. */
    private final int frameField;
    /** The request's id (the reply's). */
    final long id;
    private int type;
    private MessageLite body;
    private int bodySize;
    private int replySize;
    private int size = -1;

    ReplyFrame(long id, int type, MessageLite body) {
      this(Frame.REPLY_FIELD_NUMBER, id, type, body);
    }

    /** A reply to request {@code id} whose body {@link #body} sets, before the frame is written. */
    ReplyFrame(long id) {
      this.frameField = Frame.REPLY_FIELD_NUMBER;
      this.id = id;
    }

    private ReplyFrame(int frameField, long id, int type, MessageLite body) {
      this.frameField = frameField;
      this.id = id;
      this.type = type;
      this.body = body;
    }

    /** Sets the reply's body (of wire type {@code type}); not once the frame was written. */
    final void body(int type, MessageLite body) {
      this.type = type;
      this.body = body;
      this.size = -1;
    }

    @Override
    public int serializedSize() {
      if (size < 0) {
        bodySize = body.getSerializedSize();
        replySize = (id != 0 ? CodedOutputStream.computeUInt64Size(Reply.ID_FIELD_NUMBER, id) : 0)
            + (type != 0 ? CodedOutputStream.computeUInt32Size(Reply.TYPE_FIELD_NUMBER, type) : 0)
            + (bodySize != 0 ? CodedOutputStream.computeTagSize(Reply.BODY_FIELD_NUMBER)
                + CodedOutputStream.computeUInt32SizeNoTag(bodySize) + bodySize : 0);
        size = CodedOutputStream.computeTagSize(frameField) + CodedOutputStream.computeUInt32SizeNoTag(replySize)
            + replySize;
      }
      return size;
    }

    @Override
    public void writeTo(CodedOutputStream out) throws IOException {
      serializedSize();
      out.writeTag(frameField, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(replySize);
      if (id != 0) {
        out.writeUInt64(Reply.ID_FIELD_NUMBER, id);
      }
      if (type != 0) {
        out.writeUInt32(Reply.TYPE_FIELD_NUMBER, type);
      }
      if (bodySize != 0) {
        out.writeTag(Reply.BODY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(bodySize);
        body.writeTo(out);
      }
    }

    /** The same frame built with the generated classes (tests compare the encodings). */
    Frame toFrame() {
      return frameField == Frame.REQUEST_FIELD_NUMBER
          ? Frame.newBuilder().setRequest(org.kvlab.wire.Request.newBuilder().setId(id).setType(type)
              .setBody(body.toByteString())).build()
          : Frame.newBuilder().setReply(Reply.newBuilder().setId(id).setType(type).setBody(body.toByteString())).build();
    }
  }

  /**
   * A client's request, encoded as {@code Frame{request: Request{id, type, body: body.toByteString()}}} would be, with the
   * body serialized straight into the frame's buffer ({@link ReplyFrame}'s encoding under Frame.request: Request
   * numbers its fields as Reply does): one object per request instead of a body byte string and four builder and
   * message objects.
   */
  static final class RequestFrame extends ReplyFrame {
    RequestFrame(long id, int type, MessageLite body) {
      super(Frame.REQUEST_FIELD_NUMBER, id, type, body);
    }
  }

  /**
   * A {@link Frame} holding a peer channel's {@link org.kvlab.wire.Data} message, encoded as the generated code would
   * encode {@code Frame{data: Data{seq, type, body: body.toByteString()}}} (proto3: fields at their default value are
   * left out), with the protocol message serialized straight into the frame's buffer: no body byte string, no Data
   * or Frame object per message. The body is a protocol message (immutable, so a resend after a reconnect writes the
   * same bytes) or, for a message a durable channel reloaded from its outbox, its bytes. The size is computed once.
   */
  static final class DataFrame implements Encodable {
    private static final int FRAME_DATA = Frame.DATA_FIELD_NUMBER;
    private final long seq;
    private final int type;
    private final MessageLite body;                     // null: the body is bodyBytes
    private final com.google.protobuf.ByteString bodyBytes;
    private int bodySize;
    private int dataSize;
    private int size = -1;

    DataFrame(long seq, int type, MessageLite body) {
      this.seq = seq;
      this.type = type;
      this.body = java.util.Objects.requireNonNull(body, "body");
      this.bodyBytes = null;
    }

    /** The frame of a Data message as it was kept (a durable channel's outbox). */
    DataFrame(org.kvlab.wire.Data data) {
      this.seq = data.getSeq();
      this.type = data.getType();
      this.body = null;
      this.bodyBytes = data.getBody();
    }

    long seq() {
      return seq;
    }

    @Override
    public int serializedSize() {
      if (size < 0) {
        bodySize = body != null ? body.getSerializedSize() : bodyBytes.size();
        dataSize = (seq != 0 ? CodedOutputStream.computeUInt64Size(org.kvlab.wire.Data.SEQ_FIELD_NUMBER, seq) : 0)
            + (type != 0 ? CodedOutputStream.computeUInt32Size(org.kvlab.wire.Data.TYPE_FIELD_NUMBER, type) : 0)
            + (bodySize != 0 ? CodedOutputStream.computeTagSize(org.kvlab.wire.Data.BODY_FIELD_NUMBER)
                + CodedOutputStream.computeUInt32SizeNoTag(bodySize) + bodySize : 0);
        size = CodedOutputStream.computeTagSize(FRAME_DATA) + CodedOutputStream.computeUInt32SizeNoTag(dataSize)
            + dataSize;
      }
      return size;
    }

    @Override
    public void writeTo(CodedOutputStream out) throws IOException {
      serializedSize();
      out.writeTag(FRAME_DATA, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(dataSize);
      if (seq != 0) {
        out.writeUInt64(org.kvlab.wire.Data.SEQ_FIELD_NUMBER, seq);
      }
      if (type != 0) {
        out.writeUInt32(org.kvlab.wire.Data.TYPE_FIELD_NUMBER, type);
      }
      if (bodySize != 0) {
        out.writeTag(org.kvlab.wire.Data.BODY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(bodySize);
        if (body != null) {
          body.writeTo(out);
        } else {
          out.writeRawBytes(bodyBytes);
        }
      }
    }

    /** The Data message this frame holds (a durable channel's outbox keeps it; tests compare encodings). */
    org.kvlab.wire.Data toData() {
      return org.kvlab.wire.Data.newBuilder().setSeq(seq).setType(type)
          .setBody(body != null ? body.toByteString() : bodyBytes).build();
    }

    /** The same frame built with the generated classes (tests compare the encodings). */
    Frame toFrame() {
      return Frame.newBuilder().setData(toData()).build();
    }
  }

  /**
   * Writes a {@link Frame} (or an {@link Encodable}) as its 4-byte length and its bytes. Frames written between two
   * flushes share one pooled buffer (a batch, up to {@link #BATCH_BYTES}), passed on when the flush comes: a server
   * answering the requests of one socket read (the flush consolidation before this encoder holds the flushes until the
   * read is done) takes one buffer from the pool, one entry of the channel's outbound buffer and one element of the
   * socket's gathering write for all its replies, where a buffer per frame took one of each per reply (the pool's
   * per-thread cache was the largest single cost of the reply path, docs/benchmarks/dkvf-anchor.md). What is written
   * and not flushed is not sent, as with Netty's own outbound buffer.
   *
   * <p>A frame written with a promise someone may wait on (not a void promise) is passed on at once with the batch it
   * ends, the promise standing for the whole buffer: it completes when this frame (and those before it) is written.
   * Frames above {@link #SCRATCH_BYTES} get a buffer of their own (after the batch before them), of the exact size.
   * Where Netty's ProtobufEncoder and LengthFieldPrepender made a byte array, a copy of it and a separate 4-byte header
   * buffer per frame, this makes none of them.
   */
  static final class FrameEncoder extends ChannelOutboundHandlerAdapter {
    /**
     * Frames up to this size are serialized into a byte array kept by the encoder and copied into the buffer: protobuf's
     * encoder for a direct buffer duplicates the buffer (two objects per frame), its array encoder does not.
     */
    static final int SCRATCH_BYTES = 4096;
    /** The capacity of a batch buffer; a frame that does not fit in what is left of it starts the next one. */
    static final int BATCH_BYTES = 8192;
    private byte[] scratch;
    /**
     * An encoder over all of {@link #scratch}: frames are written one after another into it (each copied out at once)
     * and a new one is made only when the next frame does not fit in what is left, so most frames make no encoder.
     * Null after a frame failed to encode.
     */
    private CodedOutputStream scratchOutput;
    /** The frames written since the last flush and not passed on yet; null if none. */
    private ByteBuf batch;

    static boolean encodes(Object msg) {
      return msg instanceof MessageLite || msg instanceof Encodable;
    }

    private static int sizeOf(Object msg) {
      return msg instanceof MessageLite m ? m.getSerializedSize() : ((Encodable) msg).serializedSize();
    }

    private static void writeBody(Object msg, CodedOutputStream cos) throws IOException {
      if (msg instanceof MessageLite m) {
        m.writeTo(cos);
      } else {
        ((Encodable) msg).writeTo(cos);
      }
      cos.flush();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (!encodes(msg)) { // not ours (nothing in kvlab writes such): after what was written before it
        passBatch(ctx);
        ctx.write(msg, promise);
        return;
      }
      int size = sizeOf(msg); // memoized by the message
      if (size > SCRATCH_BYTES) {
        passBatch(ctx);
        ctx.write(encodeAlone(ctx, msg, size), promise);
        return;
      }
      if (batch != null && batch.writableBytes() < LENGTH_BYTES + size) {
        passBatch(ctx);
      }
      if (batch == null) {
        batch = ctx.alloc().ioBuffer(BATCH_BYTES);
      }
      int mark = batch.writerIndex();
      try {
        batch.writeInt(size);
        encodeInScratch(msg, size, batch);
      } catch (IOException | RuntimeException e) {
        batch.writerIndex(mark); // the frames before it stay
        throw e instanceof EncoderException ee ? ee : new EncoderException(e);
      }
      if (!promise.isVoid()) { // someone may wait for this frame: it goes now, ending the batch
        ByteBuf b = batch;
        batch = null;
        ctx.write(b, promise);
      }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      passBatch(ctx);
      ctx.flush();
    }

    /** Passes the batch on (unflushed) if it has anything. */
    private void passBatch(ChannelHandlerContext ctx) {
      ByteBuf b = batch;
      if (b != null) {
        batch = null;
        if (b.isReadable()) {
          ctx.write(b, ctx.voidPromise());
        } else {
          b.release();
        }
      }
    }

    /** Drops what was written and not flushed: a closed channel drops unflushed writes (as Netty's outbound buffer). */
    private void dropBatch() {
      if (batch != null) {
        batch.release();
        batch = null;
      }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
      dropBatch();
      ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      dropBatch();
    }

    /** Appends frame {@code msg} of {@code size} bytes to {@code out}, through {@link #scratch}. */
    private void encodeInScratch(Object msg, int size, ByteBuf out) throws IOException {
      CodedOutputStream cos = scratchOutput;
      if (cos == null || cos.spaceLeft() < size) {
        if (scratch == null) {
          scratch = new byte[SCRATCH_BYTES];
        }
        cos = CodedOutputStream.newInstance(scratch);
      }
      scratchOutput = null; // until this frame is written whole
      int at = cos.getTotalBytesWritten();
      writeBody(msg, cos);
      int written = cos.getTotalBytesWritten() - at;
      if (written != size) {
        throw new EncoderException("a frame announced " + size + " bytes and wrote " + written);
      }
      out.writeBytes(scratch, at, size);
      scratchOutput = cos;
    }

    /** A frame above {@link #SCRATCH_BYTES} in a buffer of its exact size, serialized straight into it. */
    private static ByteBuf encodeAlone(ChannelHandlerContext ctx, Object msg, int size) {
      ByteBuf out = ctx.alloc().ioBuffer(LENGTH_BYTES + size);
      try {
        out.writeInt(size);
        int start = out.writerIndex();
        boolean direct = out.nioBufferCount() == 1; // an ioBuffer is one memory region
        byte[] array = direct ? null : new byte[size];
        CodedOutputStream cos = direct ? CodedOutputStream.newInstance(out.internalNioBuffer(start, size))
            : CodedOutputStream.newInstance(array);
        writeBody(msg, cos);
        cos.checkNoSpaceLeft(); // exactly the size announced
        if (direct) {
          out.writerIndex(start + size);
        } else {
          out.writeBytes(array);
        }
        return out;
      } catch (IOException | RuntimeException e) {
        out.release();
        throw e instanceof EncoderException ee ? ee : new EncoderException(e);
      }
    }
  }

  /**
   * Makes the object a server's {@link FrameDecoder} hands on for a client request it parsed (the runtime's request),
   * or for a peer's Data message ({@code id} is then its sequence number).
   */
  interface RequestFactory {
    Object request(long id, int type, Message body);
  }

  /**
   * Splits the byte stream into frames and parses each as a {@link Frame}, straight from the received
   * buffer (no copy of the frame into a byte array first; bytes fields of the frame are copied out, so
   * nothing refers to the buffer afterwards). On a server's client connection ({@link #parseRequests}) a frame
   * that is a plain request becomes a request object of the {@link RequestFactory} instead, and on its incoming peer
   * channel ({@link #parsePeerData}) a frame that is a plain Data message does. Unlike Netty's length-field decoder its limit is on the
   * body (what {@code limits.frameBytesMax} says) and can change: accepted connections start with the
   * small handshake limit. A length above the limit (or above 2^31-1) fails at once, before anything of
   * the body is buffered. A frame that is not a valid Frame closes the connection (malformed frame). A
   * connection that ends in the middle of a frame is logged.
   */
  static final class FrameDecoder extends ByteToMessageDecoder {
    /** Frame.request: field 5, length-delimited (a tag is the field number shifted by 3, or the wire type). */
    private static final int REQUEST_TAG = tag(Frame.REQUEST_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final int ID_TAG = tag(org.kvlab.wire.Request.ID_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
    private static final int TYPE_TAG = tag(org.kvlab.wire.Request.TYPE_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
    private static final int BODY_TAG = tag(org.kvlab.wire.Request.BODY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    /** Frame.reply: field 6, length-delimited. Reply's id, type and body have Request's numbers and types. */
    private static final int REPLY_TAG = tag(Frame.REPLY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    /** Frame.data: field 3, length-delimited. Data's fields (seq, type, body) have Request's numbers and types. */
    private static final int DATA_TAG = tag(Frame.DATA_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);

    static {
      // The fast paths parse Request, Reply and Data with Request's tags, and ReplyFrame writes Reply's numbers
      // for a RequestFrame too: every channel installs a decoder before it writes, so this runs first.
      if (org.kvlab.wire.Data.SEQ_FIELD_NUMBER != org.kvlab.wire.Request.ID_FIELD_NUMBER
          || org.kvlab.wire.Data.TYPE_FIELD_NUMBER != org.kvlab.wire.Request.TYPE_FIELD_NUMBER
          || org.kvlab.wire.Data.BODY_FIELD_NUMBER != org.kvlab.wire.Request.BODY_FIELD_NUMBER
          || Reply.ID_FIELD_NUMBER != org.kvlab.wire.Request.ID_FIELD_NUMBER
          || Reply.TYPE_FIELD_NUMBER != org.kvlab.wire.Request.TYPE_FIELD_NUMBER
          || Reply.BODY_FIELD_NUMBER != org.kvlab.wire.Request.BODY_FIELD_NUMBER) {
        throw new AssertionError("wire.proto: Data, Reply and Request must number seq/id, type and body alike");
      }
    }

    private static int tag(int field, int wireType) {
      return (field << 3) | wireType;
    }

    private final String owner;
    private final Consumer<String> events;
    private IntFunction<Parser<? extends Message>> requestParsers;
    private RequestFactory requests;
    private byte[] scratch; // see parseInScratch()
    /**
     * A decoder over all of {@link #scratch}, positioned after the last frame parsed from it: the next frame is copied
     * in right there and parsed under a limit of its length, so most frames make no decoder. Null whenever the next
     * frame must start a new one (none yet, or a frame failed or went the slow way).
     */
    private CodedInputStream scratchInput;
    private int fastTag; // the Frame field parseRequest takes: REQUEST_TAG or DATA_TAG
    private int limit;
    private String limitName;
    private boolean failed;
    /** The server's budget of partly received frames this connection is charged to; null: none (outgoing ones). */
    private PartialFrames budget;
    /** Who this connection is, for {@link PartialFrames}: which pool it is charged to and whether it may be closed. */
    PartialFrames.Rank rank = PartialFrames.Rank.UNAUTHENTICATED;
    /** What {@link PartialFrames} charges this connection now, and whether to its handshake reserve (it sets these). */
    long held;
    boolean charged;
    /** The length prefix plus body of the partly received frame at the buffer's reader index; 0: none (or unknown). */
    private long pending;
    private Channel channel;

    FrameDecoder(int limit, String owner, Consumer<String> events) {
      this.events = events == null ? e -> { } : events;
      this.limit = limit;
      this.limitName = "limits.frameBytesMax = " + limit;
      this.owner = owner;
      setCumulator(this::cumulate);
    }

    /** Charges what this connection holds in partly received frames to {@code budget} (a server's accepted ones). */
    void budget(PartialFrames budget) {
      this.budget = budget;
    }

    /** The remote address, for log lines. */
    Object remote() {
      return channel == null ? "?" : channel.remoteAddress();
    }

    /** {@link PartialFrames} closes this connection to make room: what is buffered is dropped (it logged why). */
    void closeForBudget() {
      failed = true;
      pending = 0;
      if (channel != null) {
        channel.close();
      }
    }

    /** Sets the largest body accepted from now on; {@code name} explains it in the error. */
    void limit(int limit, String name) {
      this.limit = limit;
      this.limitName = name;
    }

    int limit() {
      return limit;
    }

    /**
     * From now on, a frame that is exactly {@code Frame{request: Request{id, type, body}}} (fields in the generated
     * code's order) and whose type {@code parsers} has a parser for becomes {@code requests.request(id, type, body)}
     * with its body parsed in place (no Frame, Request or body byte string). Every other frame, and a request whose
     * body does not parse, stays a {@link Frame} (so the server answers it as before, e.g. "malformed" or "no
     * handler"). For a server's client connections.
     */
    void parseRequests(IntFunction<Parser<? extends Message>> parsers, RequestFactory requests) {
      this.requestParsers = parsers;
      this.requests = requests;
      this.fastTag = REQUEST_TAG;
    }

    /**
     * As {@link #parseRequests}, for a server's incoming peer channel: a frame that is exactly
     * {@code Frame{data: Data{seq, type, body}}} whose type {@code parsers} has a parser for becomes
     * {@code messages.request(seq, type, body)} with its body parsed in place; every other frame stays a {@link Frame}.
     */
    void parsePeerData(IntFunction<Parser<? extends Message>> parsers, RequestFactory messages) {
      this.requestParsers = parsers;
      this.requests = messages;
      this.fastTag = DATA_TAG;
    }

    /**
     * As {@link #parseRequests}, for a client's connection: a frame that is exactly {@code Frame{reply: Reply{id, type,
     * body}}} (a reply without an error) whose type {@code parsers} has a parser for becomes
     * {@code replies.request(id, type, body)} with its body parsed in place; every other frame (an error reply, the
     * handshake's frames, a body that does not parse) stays a {@link Frame}.
     */
    void parseReplies(IntFunction<Parser<? extends Message>> parsers, RequestFactory replies) {
      this.requestParsers = parsers;
      this.requests = replies;
      this.fastTag = REPLY_TAG;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (failed) {
        in.skipBytes(in.readableBytes());
        return;
      }
      while (in.readableBytes() >= LENGTH_BYTES) {
        long length = in.getUnsignedInt(in.readerIndex());
        if (length > limit) {
          failed = true;
          in.skipBytes(in.readableBytes());
          events.accept("wire.framesTooLarge");
          throw new TooLongFrameException("a frame of " + length + " bytes, above " + limitName
              + (limitName.startsWith("limits.") ? "; raise it if this is legitimate" : ""));
        }
        if (in.readableBytes() < LENGTH_BYTES + length) {
          pending = LENGTH_BYTES + length;
          charge(ctx, in, Math.max(in.capacity(), pending));
          return;
        }
        pending = 0;
        in.skipBytes(LENGTH_BYTES);
        int start = in.readerIndex();
        in.skipBytes((int) length);
        try {
          out.add(parse(in, start, (int) length));
        } catch (IOException e) {
          failed = true;
          in.skipBytes(in.readableBytes());
          throw new io.netty.handler.codec.DecoderException(e);
        }
      }
      charge(ctx, in, in.isReadable() ? in.capacity() : 0);
    }

    /**
     * Charges {@code bytes} to the budget (if any); when there is no room, fails the connection: what it buffered is
     * dropped and the exception closes it with the reason.
     */
    private void charge(ChannelHandlerContext ctx, ByteBuf in, long bytes) {
      if (budget == null || bytes == held) {
        return;
      }
      channel = ctx.channel();
      if (!budget.hold(this, bytes)) {
        failed = true;
        pending = 0;
        in.skipBytes(in.readableBytes());
        throw new PartialFrameBudgetException(budget.refusal(this, bytes));
      }
    }

    /**
     * Netty's merging cumulator, but sized for the frame being received: when the buffer must grow for a frame above
     * {@link #SHRINK_ABOVE} bytes it grows once, to the whole frame (its length is known), instead of in 4 MiB steps
     * each copying what came before; and a buffer left much larger than what it holds (after a big frame) is replaced
     * by a smaller one. Direct memory, as Netty's own (docs/runtime.md, "Memory of partly received frames", says why).
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
      if (cumulation == in) { // as Netty's MERGE_CUMULATOR: the same buffer is retained twice
        in.release();
        return cumulation;
      }
      if (!cumulation.isReadable() && in.isContiguous()) {
        cumulation.release();
        return in;
      }
      try {
        int required = in.readableBytes();
        long total = (long) cumulation.readableBytes() + required;
        long wanted = Math.max(total, pending);
        boolean fits = required <= cumulation.writableBytes() && cumulation.refCnt() == 1 && !cumulation.isReadOnly();
        boolean oversized = cumulation.capacity() > SHRINK_ABOVE && cumulation.capacity() > 2 * wanted;
        if (fits && !oversized) {
          cumulation.writeBytes(in, in.readerIndex(), required);
          in.readerIndex(in.writerIndex());
          return cumulation;
        }
        if (wanted > Integer.MAX_VALUE - 8) {
          throw new TooLongFrameException("a frame of " + pending + " bytes does not fit one buffer");
        }
        // A big frame gets its whole size at once; small ones grow as Netty's do (doubling), which keeps streams of
        // small frames from reallocating on every read.
        int capacity = pending > SHRINK_ABOVE && pending >= total ? (int) pending
            : alloc.calculateNewCapacity((int) total, Integer.MAX_VALUE);
        ByteBuf grown = alloc.buffer(capacity);
        grown.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
        grown.writeBytes(in, in.readerIndex(), required);
        in.readerIndex(in.writerIndex());
        cumulation.release();
        return grown;
      } finally {
        in.release();
      }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
      if (budget != null) {
        budget.release(this);
      }
    }

    private Object parse(ByteBuf in, int start, int length) throws IOException {
      if (!in.hasArray() && length <= FrameEncoder.SCRATCH_BYTES) {
        return parseInScratch(in, start, length);
      }
      if (requestParsers != null) {
        Object request = parseRequest(input(in, start, length), 0, length);
        if (request != null) {
          return request;
        }
      }
      return parseFrame(input(in, start, length));
    }

    /**
     * No aliasing (the default) on any path: bytes and string fields are copied, so nothing refers to the buffer or to
     * the decoder's array afterwards.
     */
    private static Frame parseFrame(CodedInputStream cis) throws IOException {
      Frame frame = Frame.parser().parseFrom(cis);
      cis.checkLastTagWas(0);
      return frame;
    }

    /**
     * A frame of a buffer without an array (a socket's pooled direct buffer), up to {@link FrameEncoder#SCRATCH_BYTES}:
     * copied into the decoder's byte array after the previous one and parsed there by the decoder kept over the array
     * ({@link #scratchInput}), under a limit of the frame's length. protobuf's decoder of a direct buffer duplicates the
     * buffer and decodes strings through a char array; its array decoder does neither, and kept from frame to frame it
     * is not one object per frame either.
     */
    private Object parseInScratch(ByteBuf in, int start, int length) throws IOException {
      if (scratch == null) {
        scratch = new byte[FrameEncoder.SCRATCH_BYTES];
      }
      CodedInputStream cis = scratchInput;
      int at = cis == null ? 0 : cis.getTotalBytesRead();
      if (cis == null || at + length > scratch.length) {
        cis = CodedInputStream.newInstance(scratch);
        at = 0;
      }
      scratchInput = null; // until this frame parsed cleanly
      in.getBytes(start, scratch, at, length);
      int outer = cis.pushLimit(length);
      Object parsed = requestParsers == null ? null : parseRequest(cis, at, length);
      if (parsed == null && requestParsers != null) {
        // The fast path gave up somewhere inside the frame: the slow path parses it again from its start.
        return parseFrame(CodedInputStream.newInstance(scratch, at, length));
      }
      if (parsed == null) {
        parsed = parseFrame(cis);
      }
      Invariants.check(cis.getTotalBytesRead() == at + length, "a frame of %s bytes parsed as %s", length,
          cis.getTotalBytesRead() - at);
      cis.popLimit(outer);
      scratchInput = cis;
      return parsed;
    }

    /**
     * The frame of {@code length} bytes on {@code cis} (from its byte {@code at} on, where nothing else follows it) as
     * a request object, or null if it is anything else
     * than exactly one Request (id, type, then body, each at most once and nothing else; or one Data, seq, type, body,
     * on a peer channel), if the type has no parser
     * or if anything fails to parse: the caller then parses it as a {@link Frame}, which gives the same request
     * (or the same error) the slow way.
     */
    private Object parseRequest(CodedInputStream cis, int at, int length) {
      try {
        if (cis.readTag() != fastTag) {
          return null;
        }
        int requestLength = cis.readRawVarint32();
        if (requestLength < 0 || cis.getTotalBytesRead() - at + requestLength != length) {
          return null; // not the only field of the frame
        }
        long id = 0;
        int type = 0;
        int seen = 0; // the fields seen so far, in order: 1 id, 2 type, 3 body
        Message body = null;
        while (true) {
          int tag = cis.readTag();
          if (tag == 0) {
            break;
          } else if (tag == ID_TAG && seen < 1) {
            id = cis.readUInt64();
            seen = 1;
          } else if (tag == TYPE_TAG && seen < 2) {
            type = cis.readUInt32();
            seen = 2;
          } else if (tag == BODY_TAG && seen < 3) {
            Parser<? extends Message> parser = requestParsers.apply(type);
            if (parser == null) {
              return null;
            }
            int bodyLength = cis.readRawVarint32();
            int outer = cis.pushLimit(bodyLength);
            body = parser.parseFrom(cis); // as MessageTypes.parse does from the body's byte string
            cis.checkLastTagWas(0);
            cis.popLimit(outer);
            seen = 3;
          } else {
            return null;
          }
        }
        if (body == null) { // proto3 leaves an empty body out
          Parser<? extends Message> parser = requestParsers.apply(type);
          if (parser == null) {
            return null;
          }
          body = parser.parseFrom(com.google.protobuf.ByteString.EMPTY);
        }
        return requests.request(id, type, body);
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }

    /**
     * A protobuf input over the frame, for a buffer with an array or a frame above {@link FrameEncoder#SCRATCH_BYTES}
     * (the others: {@link #parseInScratch}): the buffer's own array if it has one, else the buffer's memory.
     */
    private static CodedInputStream input(ByteBuf in, int start, int length) {
      if (in.hasArray()) {
        return CodedInputStream.newInstance(in.array(), in.arrayOffset() + start, length);
      }
      if (in.nioBufferCount() == 1) {
        return CodedInputStream.newInstance(in.internalNioBuffer(start, length));
      }
      byte[] copy = new byte[length];
      in.getBytes(start, copy);
      return CodedInputStream.newInstance(copy);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
      super.decodeLast(ctx, in, out);
      if (!failed && in.isReadable()) {
        String got = in.readableBytes() < LENGTH_BYTES ? in.readableBytes() + " bytes of a length prefix"
            : (in.readableBytes() - LENGTH_BYTES) + " of " + in.getUnsignedInt(in.readerIndex()) + " bytes";
        LOG.warn("{}: connection with {} ended in the middle of a frame ({} received); the frame is dropped",
            owner, ctx.channel().remoteAddress(), got);
        in.skipBytes(in.readableBytes());
        events.accept("wire.truncatedFrames");
      }
      if (budget != null) {
        budget.release(this);
      }
    }
  }

  /** A connection's partly received frame found no room within limits.partialFrameBytesMax ({@link PartialFrames}). */
  static final class PartialFrameBudgetException extends io.netty.handler.codec.DecoderException {
    private static final long serialVersionUID = 1L;

    PartialFrameBudgetException(String message) {
      super(message);
    }
  }
}
