package org.kvlab.partitioning.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Alg. 1 on the online store of seed 004's Fig. 1 gives the paper's classes (create and add local by cart, order
 * global, browsing commutative); the sampled soundness check passes it and catches a wrong parameter; bad
 * declarations are refused with the fix.
 */
class OperationPartitioningTest {
  static final Path STORE = Path.of("../examples/operations/online-store.yaml");

  private static List<OperationType> yaml(String text) throws Exception {
    return OperationsFile.parse(new ObjectMapper(new YAMLFactory()).readTree(text));
  }

  @Test
  void theOnlineStore_isClassifiedAsInTheSeed() throws Exception {
    OperationPartitioning.Result r = OperationPartitioning.classify(OperationsFile.read(STORE));
    assertEquals(OperationClass.L, r.of("create").cls());
    assertEquals("c", r.of("create").param());
    assertEquals(OperationClass.L, r.of("addToCart").cls());
    assertEquals("c", r.of("addToCart").param(), "addToCart is partitioned by its cart, not its item or quantity");
    assertEquals(OperationClass.G, r.of("order").cls());
    assertTrue(r.of("order").reasons().stream().anyMatch(s -> s.contains("order and order write one key when true")),
        r.of("order").reasons().toString());
    assertEquals(OperationClass.C, r.of("browseCatalog").cls());
    assertEquals(0.6, r.shares().get(OperationClass.L), 1e-9);
    assertEquals(0.2, r.shares().get(OperationClass.G), 1e-9);
    assertEquals(3L * 1 * 1, r.combinations());
    String table = ClassificationTable.render(r);
    assertTrue(table.contains("types: L=2 G=1 C=1; weighted: L 60%, G 20%, C 20%"), table);
  }

  @Test
  void theSampledSoundnessCheck_passesTheClassification_andCatchesAWrongParameter() throws Exception {
    OperationPartitioning.Result r = OperationPartitioning.classify(OperationsFile.read(STORE));
    assertEquals(List.of(), SoundnessCheck.check(r, 3, 400, 5, 1));
    List<OperationPartitioning.Assignment> wrong = new ArrayList<>(r.assignments());
    OperationPartitioning.Assignment add = r.of("addToCart");
    wrong.set(wrong.indexOf(add), new OperationPartitioning.Assignment(add.type(), OperationClass.L, "i", List.of()));
    List<String> v = SoundnessCheck.check(new OperationPartitioning.Result(wrong, 0, 1), 3, 400, 5, 1);
    assertFalse(v.isEmpty(), "add partitioned by item puts conflicting writes to one cart at different servers");
    assertTrue(v.get(0).contains("conflict but are L/L at different servers"), v.get(0));
  }

  @Test
  void theSearchFindsTheOneParameterThatMakesEveryTypeLocal_andATransferBetweenTwoAccountsMakesItsWritersGlobal()
      throws Exception {
    String accounts = """
        types:
          - { name: deposit, params: [amount, account], reads: ["balance:{account}"], writes: ["balance:{account}"] }
          - { name: audit, params: [branch, account], reads: ["balance:{account}", "branch:{branch}"] }
          - { name: close, params: [account], writes: ["balance:{account}"] }
        """;
    OperationPartitioning.Result r = OperationPartitioning.classify(yaml(accounts));
    for (String t : List.of("deposit", "audit", "close")) {
      assertEquals("account", r.of(t).param(), t);
      assertEquals(OperationClass.L, r.of(t).cls(), t + ": " + r.of(t).reasons());
    }
    assertEquals(2L * 2 * 1, r.combinations());
    assertEquals(0.0, r.cost());
    OperationPartitioning.Result t = OperationPartitioning.classify(yaml(accounts + """
          - { name: transfer, params: [from, to], reads: ["balance:{from}", "balance:{to}"],
              writes: ["balance:{from}", "balance:{to}"] }
        """));
    assertEquals(OperationClass.G, t.of("transfer").cls(), "two accounts: whichever it routes by, the other crosses");
    assertEquals(OperationClass.G, t.of("deposit").cls(), "a transfer at another server writes the same balance");
    assertEquals(OperationClass.L, t.of("audit").cls(), "reading what a global transfer wrote is allowed");
    assertEquals(List.of(), SoundnessCheck.check(t, 4, 300, 6, 2));
  }

  @Test
  void templatesUnifyOnEqualitiesOfParameters_andLiterals() {
    KeyTemplate a = KeyTemplate.parse("order:{c}:*", java.util.Set.of("c"));
    KeyTemplate b = KeyTemplate.parse("order:{d}:{n}", java.util.Set.of("d", "n"));
    assertEquals("a.c=b.d", a.unify(b, "a", "b").toString());
    assertEquals(null, a.unify(KeyTemplate.parse("cart:{c}", java.util.Set.of("c")), "a", "b"));
    KeyTemplate lit = KeyTemplate.parse("order:7:*", java.util.Set.of());
    assertEquals("a.c=\"7\"", a.unify(lit, "a", "b").toString());
    assertTrue(a.matches("order:5:1", Map.of("c", "5")));
    assertFalse(a.matches("order:6:1", Map.of("c", "5")));
  }

  @Test
  void atRunTime_aKeyOutsideTheDeclaredTemplates_isNoticed() throws Exception {
    OperationType add = OperationsFile.read(STORE).get(1);
    assertTrue(add.declares("stock:9", Map.of("c", "1", "i", "9", "q", "2"), false));
    assertTrue(add.declares("cart:1", Map.of("c", "1", "i", "9", "q", "2"), true));
    assertFalse(add.declares("cart:2", Map.of("c", "1", "i", "9", "q", "2"), true), "another cart than its own");
    assertFalse(add.declares("stock:9", Map.of("c", "1", "i", "9", "q", "2"), true), "add does not write stock");
  }

  @Test
  void badDeclarations_nameTheFix() {
    assertThrows(IllegalArgumentException.class, () -> yaml("tipes: []"));
    IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
        () -> yaml("types: [ {name: a, params: [c], writes: [\"cart:{x}\"]} ]"));
    assertTrue(p.getMessage().contains("names parameter {x}, which is not among the type's parameters [c]. Fix:"),
        p.getMessage());
    IllegalArgumentException d = assertThrows(IllegalArgumentException.class,
        () -> yaml("types: [ {name: a, writes: [k]}, {name: a, writes: [k]} ]"));
    assertTrue(d.getMessage().contains("declared twice"), d.getMessage());
    IllegalArgumentException f = assertThrows(IllegalArgumentException.class,
        () -> yaml("types: [ {name: a, write: [k]} ]"));
    assertTrue(f.getMessage().contains("unknown field 'write'. Fix: use"), f.getMessage());
    IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
        () -> yaml("types: [ {name: a, writes: [\"cart::{c}\"], params: [c]} ]"));
    assertTrue(s.getMessage().contains("is neither a literal"), s.getMessage());
    assertThrows(IllegalArgumentException.class, () -> yaml("types: [ {name: a} ]"));
  }
}
