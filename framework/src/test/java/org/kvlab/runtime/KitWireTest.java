package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.kvlab.host.KitFrame;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.Echo;
import org.kvlab.wire.Kit;

/** {@link KitWire}: kit frames survive the runtime's encoding, the idle back-off's lease (no body) included. */
class KitWireTest {
  @Test
  void when_aLeaseIsEncoded_then_itDecodesToTheSameLease_withoutABody() throws Exception {
    KitFrame lease = new KitFrame(KitFrame.Kind.LEASE, 77, 1_234_567_890L, 3, null, null, false, false);
    Kit wire = Kit.parseFrom(KitWire.encode(lease, Testkit.MESSAGES).toByteArray());
    assertEquals(Kit.Kind.LEASE, wire.getKind());
    assertFalse(wire.getIsError());
    assertEquals(lease, KitWire.decode(wire, Testkit.MESSAGES));
  }

  @Test
  void when_aCallIsEncoded_then_itDecodesWithItsBody() throws Exception {
    Echo body = Echo.newBuilder().setPayload(com.google.protobuf.ByteString.copyFromUtf8("hi")).build();
    KitFrame call = new KitFrame(KitFrame.Kind.CALL, 5, 9, 2, body, null, false, false);
    KitFrame back = KitWire.decode(Kit.parseFrom(KitWire.encode(call, Testkit.MESSAGES).toByteArray()),
        Testkit.MESSAGES);
    assertEquals(call, back);
    assertNull(back.error());
  }
}
