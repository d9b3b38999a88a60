package org.kvlab.protocols.dynastar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.sim.SimRunner;

/**
 * Goal: every refused parameter or cluster shape says what is wrong and how to fix it ("... . Fix: ..."), before
 * anything starts (the loaders call {@link DynaStar#checkParameters}) and again at every server's start.
 */
class DynaStarParametersTest {
  private static final DynaStar DYNASTAR = new DynaStar();
  private static final Topology FOUR = new Topology(1, 4);

  private static Params params(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new Params(m);
  }

  private static ParameterException refused(String... kv) {
    ParameterException e = assertThrows(ParameterException.class, () -> DYNASTAR.checkParameters(params(kv), FOUR));
    assertEquals(kv[0], e.parameter());
    assertTrue(e.getMessage().contains(". Fix: "), e.getMessage());
    return e;
  }

  @Test
  void when_aParameterHasABadValue_then_theCheckNamesItAndTheFix() {
    assertEquals("'hashed' is not a placement", refused("placement", "hashed").problem());
    refused("repartitionEvery", "5 minutes");
    refused("repartitionEvery", "-1s");
    refused("hintEvery", "0");
    assertEquals(List.of("auto", "metis", "greedy"), refused("partitioner", "kl").choices());
    refused("maxRetries", "0");
    refused("planGain", "101");
    refused("planGain", "-1");
    refused("mutant", "lender");
    DYNASTAR.checkParameters(params("placement", "random", "repartitionEvery", "0", "partitioner", "greedy"), FOUR);
  }

  @Test
  void when_thePlacementFileIsMissingOrMalformed_then_theCheckNamesTheFileAndLine(@TempDir Path dir)
      throws Exception {
    ParameterException missing = refused("placement", "file:" + dir.resolve("none.tsv"));
    assertTrue(missing.problem().startsWith("cannot read " + dir.resolve("none.tsv")), missing.problem());
    Path bad = dir.resolve("bad.tsv");
    Files.writeString(bad, "k1\t0\nk2\t3\n");
    ParameterException line = refused("placement", "file:" + bad);
    assertTrue(line.problem().contains("line 2 'k2\t3' is not key<TAB>a partition from 0 to 2"), line.problem());
    assertTrue(line.fix().contains("kvlab advise-placement"), line.fix());
    Path good = dir.resolve("good.tsv");
    Files.writeString(good, "k1\t0\n\nk2\t2\n");
    DYNASTAR.checkParameters(params("placement", "file:" + good), FOUR);
    InitialPlacement p = InitialPlacement.parse("file:" + good, 3);
    assertEquals(0, p.of("k1"));
    assertEquals(2, p.of("k2"));
    assertEquals(InitialPlacement.parse("hash", 3).of("k3"), p.of("k3"), "keys the file does not name go by hash");
  }

  @Test
  void when_theShapeIsNotOneOfTheThreeLayouts_then_theCheckNamesTheKey() {
    DYNASTAR.checkParameters(params(), new Topology(1, 4, 3)); // replicated inside one datacenter
    DYNASTAR.checkParameters(params(), new Topology(3, 4)); // replica d of every partition in datacenter d
    assertEquals("datacenters", assertThrows(TopologyException.class,
        () -> DYNASTAR.checkParameters(params(), new Topology(2, 4))).key());
    assertEquals("replicas", assertThrows(TopologyException.class,
        () -> DYNASTAR.checkParameters(params(), new Topology(1, 4, 2))).key());
    TopologyException both = assertThrows(TopologyException.class,
        () -> DYNASTAR.checkParameters(params(), new Topology(3, 4, 3)));
    assertEquals("replicas", both.key());
    assertTrue(both.getMessage().contains("Fix: set replicas: 1"), both.getMessage());
    TopologyException one = assertThrows(TopologyException.class,
        () -> DYNASTAR.checkParameters(params(), new Topology(1, 1)));
    assertEquals("partitions", one.key());
    assertTrue(one.getMessage().contains("Fix: set partitions: 4"), one.getMessage());
  }

  @Test
  void when_aServerStartsWithABadValue_then_itRefusesWithTheCheck_sWords() {
    String expected = refused("mutant", "lender").getMessage();
    List<String> failures = SimRunner.run(DynaStarCheckedSimTest.spec("mutant=lender", Set.of()), DYNASTAR, 1,
        List.of()).result().failures();
    assertEquals(4, failures.size(), failures.toString());
    assertTrue(failures.stream().allMatch(f -> f.contains(expected)), failures.toString());
  }
}
