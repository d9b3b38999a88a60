package org.kvlab.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.protobuf.ProtobufDecoder;
import io.netty.handler.codec.protobuf.ProtobufEncoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.util.List;
import java.util.function.Consumer;
import org.kvlab.wire.Frame;
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
    pipeline.addLast("flush", new FlushConsolidationHandler(256, true));
    pipeline.addLast("frameDecoder", decoder);
    pipeline.addLast("protobufDecoder", new ProtobufDecoder(Frame.getDefaultInstance()));
    pipeline.addLast("frameEncoder", new LengthFieldPrepender(LENGTH_BYTES));
    pipeline.addLast("protobufEncoder", new ProtobufEncoder());
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
    return name + ": " + printable(t.getMessage());
  }

  /**
   * Splits the byte stream into frame bodies. Unlike Netty's length-field decoder its limit is on the
   * body (what {@code limits.frameBytesMax} says) and can change: accepted connections start with the
   * small handshake limit. A length above the limit (or above 2^31-1) fails at once, before anything of
   * the body is buffered. A connection that ends in the middle of a frame is logged.
   */
  static final class FrameDecoder extends ByteToMessageDecoder {
    private final String owner;
    private final Consumer<String> events;
    private int limit;
    private String limitName;
    private boolean failed;

    FrameDecoder(int limit, String owner, Consumer<String> events) {
      this.events = events == null ? e -> { } : events;
      this.limit = limit;
      this.limitName = "limits.frameBytesMax = " + limit;
      this.owner = owner;
    }

    /** Sets the largest body accepted from now on; {@code name} explains it in the error. */
    void limit(int limit, String name) {
      this.limit = limit;
      this.limitName = name;
    }

    int limit() {
      return limit;
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
          return;
        }
        in.skipBytes(LENGTH_BYTES);
        out.add(in.readRetainedSlice((int) length));
      }
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
    }
  }
}
