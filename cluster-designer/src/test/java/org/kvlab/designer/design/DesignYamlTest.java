package org.kvlab.designer.design;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.kvlab.config.ClusterConfig;

/** Reading and writing cluster files: round trips, minimal edits, validation with the loader's messages. */
class DesignYamlTest {
  static List<Path> examples() throws Exception {
    Path dir = Path.of("..", "examples");
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @Test
  void everyExampleRoundTripsByteForByte() throws Exception {
    List<Path> files = examples();
    assertTrue(files.size() >= 9, "examples found: " + files);
    for (Path f : files) {
      String text = Files.readString(f);
      Design d = DesignYaml.read(text, f.toString());
      assertEquals(text, DesignYaml.write(d, text), "round trip of " + f);
      // the canonical form (what a design never opened from a file writes) means the same cluster
      ClusterConfig a = ClusterConfig.parse(text, f.toString());
      ClusterConfig b = ClusterConfig.parse(DesignYaml.write(d), f.toString());
      assertEquals(a.servers(), b.servers(), f.toString());
      assertEquals(a.params().asMap(), b.params().asMap(), f.toString());
      assertEquals(a.topology(), b.topology(), f.toString());
      assertEquals(a.storage(), b.storage(), f.toString());
      assertEquals(a.limits(), b.limits(), f.toString());
      assertEquals(a.name(), b.name(), f.toString());
      assertEquals(java.util.Arrays.deepToString(a.emulation().rttMillis()),
          java.util.Arrays.deepToString(b.emulation().rttMillis()), f.toString());
      assertEquals(a.emulation().skewMillis(), b.emulation().skewMillis(), f.toString());
      assertTrue(DesignValidator.validate(d, text, f.toString()).isEmpty(), f.toString());
    }
  }

  @Test
  void anEditChangesOnlyItsLinesAndKeepsComments() throws Exception {
    String text = Files.readString(Path.of("..", "examples", "nukv-2dc-1p-3r.yaml"));
    Design d = DesignYaml.read(text, "nukv.yaml");
    d.params.put("hlc", "false");
    d.storage.put("durability", "none");
    String out = DesignYaml.write(d, text);
    List<String> before = List.of(text.split("\n", -1));
    List<String> after = List.of(out.split("\n", -1));
    assertEquals(before.size(), after.size());
    List<Integer> changed = new ArrayList<>();
    for (int i = 0; i < before.size(); i++) {
      if (!before.get(i).equals(after.get(i))) {
        changed.add(i);
      }
    }
    assertEquals(2, changed.size(), out);
    assertEquals("  hlc: false              # false = the variant without HLC (PUTs wait for their dependencies)",
        after.get(changed.get(0)));
    assertEquals("  durability: none        # Raft's acknowledgements wait for the fsync of the journal",
        after.get(changed.get(1)));
    ClusterConfig c = ClusterConfig.parse(out, "nukv.yaml");
    assertEquals("false", c.params().asMap().get("hlc"));
  }

  @Test
  void changingOneServerRewritesOnlyItsLine() throws Exception {
    String text = Files.readString(Path.of("..", "examples", "eventual-2dc-3p.yaml"));
    Design d = DesignYaml.read(text, "e.yaml");
    if (d.local) {
      return;
    }
    d.entry(org.kvlab.api.NodeId.of(1, 2)).port = "7999";
    String out = DesignYaml.write(d, text);
    List<String> before = List.of(text.split("\n", -1));
    List<String> after = List.of(out.split("\n", -1));
    assertEquals(before.size(), after.size());
    int diffs = 0;
    for (int i = 0; i < before.size(); i++) {
      if (!before.get(i).equals(after.get(i))) {
        diffs++;
        assertTrue(after.get(i).contains("1_2") && after.get(i).contains("7999"), after.get(i));
      }
    }
    assertEquals(1, diffs);
  }

  @Test
  void addingAndRemovingDatacentersKeepsTheFileValid() throws Exception {
    String text = Files.readString(Path.of("..", "examples", "eventual-2dc-3p-wan.yaml"));
    Design d = DesignYaml.read(text, "w.yaml");
    d.addDatacenter(0, 0);
    d.setRtt(0, 2, "50ms");
    d.setRtt(1, 2, "60ms");
    String out = DesignYaml.write(d, text);
    ClusterConfig c = ClusterConfig.parse(out, "w.yaml");
    assertEquals(3, c.topology().datacenters());
    assertEquals(9, c.servers().size());
    assertEquals(60, c.emulation().rttMillis()[2][1]);
    d.removeDatacenter(0);
    out = DesignYaml.write(d, text);
    c = ClusterConfig.parse(out, "w.yaml");
    assertEquals(2, c.topology().datacenters());
    assertEquals(60, c.emulation().rttMillis()[0][1]);
    d.addPartition();
    d.addReplica();
    c = ClusterConfig.parse(DesignYaml.write(d, text), "w.yaml");
    assertEquals(2 * 4 * 2, c.servers().size());
  }

  @Test
  void aNewDesignIsAValidClusterFile() throws Exception {
    Design d = Design.empty();
    d.addDatacenter(0, 0);
    d.addPartition();
    d.addPartition();
    String out = DesignYaml.write(d, null);
    ClusterConfig c = ClusterConfig.parse(out, "new.yaml");
    assertEquals(6, c.servers().size());
    // ports stay in the order 'local' would give them: 0_0 .. 0_2 on 7100 .. 7102, 1_0 .. 1_2 on 7103 .. 7105
    for (ClusterConfig.ServerSpec s : c.servers()) {
      assertEquals(7100 + s.id().dc() * 3 + s.id().partition(), s.port(), s.toString());
    }
    assertEquals(out, DesignYaml.write(DesignYaml.read(out, "new.yaml"), out));
  }

  @Test
  void validationGivesTheLoadersMessagesAndTheirElements() throws Exception {
    Design d = Design.empty();
    d.addDatacenter(0, 0);
    d.protocol = "gentlerain";
    d.params.put("hearbeat", "10ms");
    d.entry(org.kvlab.api.NodeId.of(1, 0)).port = "7100";
    d.storage.put("engine", "disk");
    List<DesignValidator.Problem> problems = DesignValidator.validate(d, null, "c.yaml");
    assertEquals(3, problems.size(), problems.toString());
    DesignValidator.Problem param = problems.stream().filter(p -> p.target().equals("param:hearbeat")).findFirst()
        .orElseThrow(() -> new AssertionError(problems.toString()));
    assertTrue(param.message().startsWith("c.yaml:"), param.message());
    assertTrue(param.message().contains("'hearbeat' is not a parameter of protocol gentlerain. Fix: did you mean 'heartbeat'?"),
        param.message());
    DesignValidator.Problem port = problems.stream().filter(p -> p.target().equals("server:1_0")).findFirst()
        .orElseThrow(() -> new AssertionError(problems.toString()));
    assertTrue(port.message().contains("127.0.0.1:7100 is already used by server 0_0"), port.message());
    assertTrue(problems.stream().anyMatch(p -> p.target().equals("field:storage.engine")
        && p.message().contains("'disk' is not a storage engine")), problems.toString());
    // the first one is exactly what the loader (and so the CLI) says about the saved file
    try {
      ClusterConfig.parse(DesignYaml.write(d, null), "c.yaml");
    } catch (org.kvlab.config.ConfigException e) {
      assertEquals(e.getMessage(), problems.get(0).message());
    }
    d.protocol = "nosuch";
    d.params.clear();
    assertTrue(DesignValidator.validate(d, null, "c.yaml").stream()
        .anyMatch(p -> p.target().equals("field:protocol") && p.message().contains("unknown protocol 'nosuch'")));
  }

  @Test
  void quotesOnlyWhatNeedsIt() {
    assertEquals("10ms", DesignYaml.quote("10ms"));
    assertEquals("-3ms", DesignYaml.quote("-3ms"));
    assertEquals("'a: b'", DesignYaml.quote("a: b"));
    assertEquals("'x # y'", DesignYaml.quote("x # y"));
    assertEquals("''", DesignYaml.quote(""));
    assertFalse(DesignYaml.quote("1-2;3-4").startsWith("'"));
  }

  @Test
  void parameterDeclarationsGiveFormDefaultAndChoices() {
    ParamSpec p = ParamSpec.of("mode", "pb | tom | camu, default camu: PB on every link, TOM on every link, or the hybrid");
    assertEquals(List.of("pb", "tom", "camu"), p.choices());
    assertEquals("camu", p.defaultValue());
    assertEquals("PB on every link, TOM on every link, or the hybrid", p.doc());
    ParamSpec h = ParamSpec.of("heartbeat", "duration, default 10ms: how often");
    assertEquals("duration", h.form());
    assertEquals("10ms", h.defaultValue());
    assertTrue(h.choices().isEmpty());
  }

  @Test
  void canvasPositionsGoInOneCommentLineAtTheEndThatTheLoaderIgnores() throws Exception {
    String text = Files.readString(Path.of("..", "examples", "eventual-2dc-3p.yaml"));
    Design d = DesignYaml.read(text, "e.yaml");
    assertTrue(DesignYaml.defaultLayout(d), "a file without a layout line is laid out in rows of four");
    d.dcs.get(1).x = 512.4;
    d.dcs.get(1).y = 301.6;
    String out = DesignYaml.write(d, text);
    assertEquals(text + "# kvlab-designer: layout 0=40,40 1=512,302\n", out, "only the layout line is added");
    // the CLI's loader reads the same cluster
    ClusterConfig a = ClusterConfig.parse(text, "e.yaml");
    ClusterConfig b = ClusterConfig.parse(out, "e.yaml");
    assertEquals(a.servers(), b.servers());
    assertEquals(a.topology(), b.topology());
    // reopened: the same positions; saved again unchanged: the same bytes
    Design again = DesignYaml.read(out, "e.yaml");
    assertEquals(512, again.dcs.get(1).x);
    assertEquals(302, again.dcs.get(1).y);
    assertEquals(40, again.dcs.get(0).x);
    assertEquals(out, DesignYaml.write(again, out));
    // an edit elsewhere keeps the line at the end and updates it when a datacenter moves again
    again.name = "moved";
    again.dcs.get(0).y = 90;
    String edited = DesignYaml.write(again, out);
    assertTrue(edited.endsWith("\n# kvlab-designer: layout 0=40,90 1=512,302\n"), edited);
    assertTrue(edited.contains("\nname: moved"), edited);
    assertEquals(1, edited.split("kvlab-designer", -1).length - 1, "one layout line");
    // a line the user wrote elsewhere (or a datacenter it does not know) is tolerated
    Design hand = DesignYaml.read("# kvlab-designer: layout 1=100,200 7=5,5 x=1,2\n" + text, "h.yaml");
    assertEquals(100, hand.dcs.get(1).x);
    assertEquals(200, hand.dcs.get(1).y);
    assertEquals(2, hand.datacenters());
    // a new design writes the line only when its datacenters are not where a reopened file would put them
    Design fresh = Design.empty();
    assertFalse(DesignYaml.write(fresh).contains("kvlab-designer"));
    fresh.dcs.get(0).x = 300;
    assertTrue(DesignYaml.write(fresh).endsWith("# kvlab-designer: layout 0=300,40\n"));
    ClusterConfig.parse(DesignYaml.write(fresh), "n.yaml");
  }
}
