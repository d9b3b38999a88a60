package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class DepsTest {
  /** The map-free form gives the same list as toProto(withSelf(d)): max per datacenter, ascending datacenters. */
  @Test
  void when_withSelfProto_then_theSameAsTheMapForm() {
    Random random = new Random(3);
    for (int round = 0; round < 2000; round++) {
      Record.Builder d = Record.newBuilder().setUt(random.nextInt(50)).setSr(random.nextInt(4));
      int entries = random.nextInt(5);
      for (int i = 0; i < entries; i++) { // repeats and any order, beyond what the invariant allows
        d.addDs(DcTime.newBuilder().setDc(random.nextInt(4) - (round % 10 == 0 ? 2 : 0)).setTime(random.nextInt(50)));
      }
      Record r = d.build();
      assertEquals(Deps.toProto(Deps.withSelf(r)), Deps.withSelfProto(r), "round " + round + ": " + r);
    }
  }
}
