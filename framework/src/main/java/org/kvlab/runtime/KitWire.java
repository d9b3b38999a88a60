package org.kvlab.runtime;

import com.google.protobuf.InvalidProtocolBufferException;
import org.kvlab.api.MessageTypes;
import org.kvlab.host.KitFrame;
import org.kvlab.wire.Kit;

/** The runtime's encoding of the protocol kit's frames ({@link KitFrame}) as {@link Kit} messages on peer channels. */
final class KitWire {
  private KitWire() {}

  static Kit encode(KitFrame f, MessageTypes types) {
    Kit.Builder k = Kit.newBuilder()
        .setKind(Kit.Kind.forNumber(f.kind().ordinal()))
        .setRun(f.run())
        .setSeq(f.seq())
        .setIncarnation(f.incarnation());
    if (f.error() != null) {
      k.setIsError(true).setError(f.error()).setOutcomeUnknown(f.unknown()).setOverloaded(f.overloaded());
    } else {
      k.setType(types.idOf(f.body().getClass())).setBody(f.body().toByteString());
    }
    return k.build();
  }

  static KitFrame decode(Kit k, MessageTypes types) throws InvalidProtocolBufferException {
    if (k.getKindValue() < 0 || k.getKindValue() >= KitFrame.Kind.values().length) {
      throw new IllegalArgumentException("unknown kit frame kind " + k.getKindValue());
    }
    KitFrame.Kind kind = KitFrame.Kind.values()[k.getKindValue()];
    if (k.getIsError()) {
      if (kind == KitFrame.Kind.CALL || kind == KitFrame.Kind.FORWARD) {
        throw new IllegalArgumentException("a " + kind + " without a body");
      }
      return new KitFrame(kind, k.getRun(), k.getSeq(), k.getIncarnation(), null, k.getError(), k.getOutcomeUnknown(),
          k.getOverloaded());
    }
    int t = k.getType();
    if (t < 0 || t >= types.size()) {
      throw new IllegalArgumentException("message type #" + Integer.toUnsignedString(t) + " is not the protocol's");
    }
    return new KitFrame(kind, k.getRun(), k.getSeq(), k.getIncarnation(), types.parse(t, k.getBody()), null, false,
        false);
  }
}
