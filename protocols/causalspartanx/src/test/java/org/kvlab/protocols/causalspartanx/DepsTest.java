package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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

  /** The client's array form of DS_c merges and encodes as the map form did: same entries, ascending datacenters. */
  @Test
  void when_theDependencySetIsAnArray_then_mergesAndEncodingAreThoseOfTheMapForm() {
    Random random = new Random(5);
    for (int round = 0; round < 500; round++) {
      int datacenters = 1 + random.nextInt(4);
      java.util.TreeMap<Integer, Long> map = new java.util.TreeMap<>();
      long[] array = Deps.emptyArray(datacenters);
      assertEquals(List.of(), Deps.toProto(array));
      for (int step = 0; step < 6; step++) {
        if (random.nextBoolean()) { // a reply's DS (GET, ROTX)
          List<DcTime> ds = new java.util.ArrayList<>();
          for (int i = random.nextInt(datacenters + 1); i > 0; i--) {
            ds.add(DcTime.newBuilder().setDc(random.nextInt(datacenters)).setTime(random.nextInt(1000)).build());
          }
          Deps.maxDS(map, ds);
          Deps.maxDS(array, ds);
        } else { // a PUT's reply ⟨sr, ut⟩
          int dc = random.nextInt(datacenters);
          long time = random.nextInt(1000);
          map.merge(dc, time, Math::max);
          Deps.put(array, dc, time);
        }
        assertEquals(Deps.toProto(map), Deps.toProto(array), "round " + round + " step " + step);
      }
    }
    long[] two = Deps.emptyArray(2);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Deps.put(two, 2, 5));
    assertTrue(e.getMessage().contains("datacenter 2") && e.getMessage().contains("run the same"), e.getMessage());
  }
}
