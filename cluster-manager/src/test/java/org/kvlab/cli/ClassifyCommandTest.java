package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cli.InProcessCli.Run;

/** {@code kvlab classify}: the online store's Table 1 and sampled check; bad files name the fix. */
class ClassifyCommandTest {
  @TempDir Path tmp;

  @Test
  void theOnlineStore_printsItsTable_andPassesTheSampledCheck() {
    Run r = InProcessCli.run("classify", "../examples/operations/online-store.yaml");
    assertEquals(Main.OK, r.code(), r.err());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("addToCart\\s+L\\s+c\\s+50")), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("order\\s+G\\s+c\\s+20")), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("browseCatalog\\s+C\\s+-\\s+20")), r.out());
    assertTrue(r.out().contains("order is global: addToCart reads a key order writes when true (and 2 more)"), r.out());
    assertTrue(r.out().contains("sampled check: 500 operations on 3 servers, no conflict"), r.out());
  }

  @Test
  void aBadFile_namesTheCauseAndTheFix() throws Exception {
    Run missing = InProcessCli.run("classify", tmp.resolve("none.yaml").toString());
    assertEquals(Main.USAGE, missing.code());
    assertTrue(missing.err().contains("does not exist. Fix:"), missing.err());
    Path bad = Files.writeString(tmp.resolve("bad.yaml"), "types:\n  - { name: a, params: [c], writes: [\"x:{d}\"] }\n");
    Run r = InProcessCli.run("classify", bad.toString());
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains("type a: key template x:{d} names parameter {d}"), r.err());
    Run servers = InProcessCli.run("classify", bad.toString(), "--servers", "1");
    assertEquals(Main.USAGE, servers.code());
  }
}
