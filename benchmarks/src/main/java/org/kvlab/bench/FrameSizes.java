package org.kvlab.bench;

import com.google.protobuf.ByteString;
import org.kvlab.api.MessageTypes;
import org.kvlab.clock.HybridLogicalClock;
import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.protocols.eventual.GetReply;
import org.kvlab.protocols.eventual.GetReq;
import org.kvlab.protocols.eventual.PutReply;
import org.kvlab.protocols.eventual.PutReq;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Reply;
import org.kvlab.wire.Request;

/**
 * The serialized sizes of the kvlab frames the workload exchanges, built exactly as the runtime builds them
 * ({@code ClientRuntime.Connection.call}, {@code Node.RequestImpl.reply}): the raw echo sends and answers
 * frames of the average request and reply size. Sizes exclude the 4-byte length prefix, which both sides add.
 *
 * @param requestId the request id used (ids are varints: the size grows by a byte at 2^14, 2^21, ...)
 */
record FrameSizes(int getRequest, int putRequest, int getReply, int putReply, long requestId) {
  /** Ids reach a few hundred thousand per connection in a run: 3-byte varints, as most of a run's ids are. */
  static final long REPRESENTATIVE_ID = 300_000;

  static FrameSizes of(String key, int valueBytes) {
    MessageTypes types = new Eventual().messages();
    ByteString value = ByteString.copyFrom(new byte[valueBytes]);
    long ut = HybridLogicalClock.of(System.currentTimeMillis(), 1); // what the server stamps (millis << 16 | c)
    long id = REPRESENTATIVE_ID;
    int getReq = request(id, types.idOf(GetReq.class), GetReq.newBuilder().setKey(key).build().toByteString());
    int putReq = request(id, types.idOf(PutReq.class),
        PutReq.newBuilder().setKey(key).setValue(value).build().toByteString());
    int getRep = reply(id, types.idOf(GetReply.class),
        GetReply.newBuilder().setFound(true).setValue(value).setUt(ut).setSr(0).build().toByteString());
    int putRep = reply(id, types.idOf(PutReply.class), PutReply.newBuilder().setUt(ut).build().toByteString());
    return new FrameSizes(getReq, putReq, getRep, putRep, id);
  }

  private static int request(long id, int type, ByteString body) {
    return Frame.newBuilder().setRequest(Request.newBuilder().setId(id).setType(type).setBody(body)).build()
        .getSerializedSize();
  }

  private static int reply(long id, int type, ByteString body) {
    return Frame.newBuilder().setReply(Reply.newBuilder().setId(id).setType(type).setBody(body)).build()
        .getSerializedSize();
  }

  /** The echo's request size: the average of a get and a put request (the workload is 50/50). */
  int echoRequest() {
    return Math.round((getRequest + putRequest) / 2f);
  }

  /** The echo's reply size: the average of a get and a put reply. */
  int echoReply() {
    return Math.round((getReply + putReply) / 2f);
  }
}
