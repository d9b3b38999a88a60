package org.kvlab.runtime;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.protobuf.ProtobufDecoder;
import io.netty.handler.codec.protobuf.ProtobufEncoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import org.kvlab.wire.Frame;

/**
 * The framing every kvlab connection uses: a 4-byte big-endian length, then one {@link Frame}.
 * A length above {@code frameBytesMax} fails fast (the connection is closed before the body is read).
 */
final class Wire {
  static final int LENGTH_BYTES = 4;

  private Wire() {}

  static void install(ChannelPipeline pipeline, int frameBytesMax) {
    pipeline.addLast("flush", new FlushConsolidationHandler(256, true));
    pipeline.addLast("frameDecoder", new LengthFieldBasedFrameDecoder(frameBytesMax, 0, LENGTH_BYTES, 0, LENGTH_BYTES, true));
    pipeline.addLast("protobufDecoder", new ProtobufDecoder(Frame.getDefaultInstance()));
    pipeline.addLast("frameEncoder", new LengthFieldPrepender(LENGTH_BYTES));
    pipeline.addLast("protobufEncoder", new ProtobufEncoder());
  }

  /** A short, human-readable name of a frame's kind, for logs. */
  static String kind(Frame frame) {
    return frame.getKindCase().name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The cause of a pipeline failure, phrased for the log line that explains a closed connection. */
  static String reason(Throwable cause) {
    Throwable t = cause;
    while (t.getCause() != null && (t instanceof io.netty.handler.codec.DecoderException)) {
      t = t.getCause();
    }
    String name = t.getClass().getSimpleName();
    if (t instanceof io.netty.handler.codec.TooLongFrameException) {
      return "frame too large (" + t.getMessage() + "); raise limits.frameBytesMax if this is legitimate";
    }
    if (t instanceof com.google.protobuf.InvalidProtocolBufferException) {
      return "malformed frame (" + t.getMessage() + ")";
    }
    if (t instanceof java.io.IOException) {
      return "I/O error (" + t.getMessage() + ")";
    }
    return name + ": " + t.getMessage();
  }
}
