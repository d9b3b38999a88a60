package org.kvlab.consensus.multicast;

import com.google.protobuf.ByteString;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.testing.TestRecord;

/**
 * A protocol that only multicasts, for checking {@link SkeenMulticast} in the simulator: every server is a group
 * ({@link SkeenTestServer}) and multicasts on its own timer; what the servers multicast and deliver goes to one
 * {@link MulticastLog} per run. Run it with one idle scripted session and no final reads.
 */
final class SkeenTestProtocol extends BaseProtocol {
  SkeenTestProtocol(MulticastLog log) {
    super("skeen-test", "servers multicast to random groups by Skeen's algorithm; nothing for clients",
        MessageTypes.of(SkeenData.class, SkeenVote.class),
        RecordType.of(TestRecord.class, r -> VersionKey.of(r.getUt(), r.getSr())), () -> new SkeenTestServer(log),
        NoClient::new);
  }

  /** The protocol serves no client operation: the simulator must run it without sessions. */
  static final class NoClient extends Client {
    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      throw new UnsupportedOperationException("skeen-test has no client operations. Fix: run it with 0 sessions");
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      throw new UnsupportedOperationException("skeen-test has no client operations. Fix: run it with 0 sessions");
    }
  }
}
