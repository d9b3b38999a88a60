package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocols;
import org.kvlab.history.HistoryFiles;

/**
 * Issue 28 items 2 and 6: protocol names are matched exactly (a wrong-case name is refused at its line and column with
 * did-you-mean, in the loader and in {@link Protocols#byName}); a fix names a real range; a user's string quoted in
 * an error is cut to a readable length (a 1 MB cluster name, a 10 MB key in a history).
 */
class UserInputMessagesTest {

  @Test
  void when_theProtocolNameDiffersInCase_then_theFileIsRefusedAtItsLineWithDidYouMean() {
    // testkit is the protocol installed on this module's test class path
    for (String wrong : new String[] {"Testkit", "TESTKIT", "testkti"}) {
      ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(
          "name: t\nprotocol: " + wrong + "\ndatacenters: 1\npartitions: 1\nlocal: { basePort: 7100 }\n", "c.yaml"));
      assertEquals("c.yaml:2:11: protocol: '" + wrong + "' is not an installed protocol. Fix: did you mean 'testkit'?"
          + " The installed protocols are testkit (./kvlab protocols lists them; ./kvlab new-protocol <name> makes a"
          + " new one); names are matched exactly, letter case included.", e.getMessage());
    }
    assertEquals("testkit", Protocols.byName("testkit").name());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Protocols.byName("TestKit"));
    assertTrue(e.getMessage().contains("did you mean 'testkit'?"), e.getMessage());
    assertEquals(null, Protocols.installed("TestKit"));
  }

  @Test
  void when_aProtocolIsNearNoInstalledOne_then_theLoaderLeavesItToTheFrontEnd() throws Exception {
    // files of protocols that are not on this class path still load (the CLI refuses them, listing the installed)
    assertEquals("eventual", ClusterConfig.parse(
        "name: t\nprotocol: eventual\ndatacenters: 1\npartitions: 1\nlocal: { basePort: 7100 }\n", "c.yaml").protocol());
  }

  @Test
  void when_aClusterHasMoreServersThanPorts_then_theFixNamesWhatCanBeDone() {
    // 64 x 1024 = 65,536 servers: no basePort works, and the fix does not say "at most 0"
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(
        "name: t\nprotocol: eventual\ndatacenters: 64\npartitions: 1024\nlocal: { basePort: 1 }\n", "c.yaml"));
    assertTrue(e.getMessage().startsWith("c.yaml:5:8: local: the 65536 servers of datacenters: 64, partitions: 1024"
        + " need 65536 ports, but one host has 65535 (1 to 65535). Fix: list the servers under 'servers' instead"),
        e.getMessage());
    assertFalse(e.getMessage().contains("at most 0"), e.getMessage());
    // 65,000 servers: a basePort too high names the range that works
    e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(
        "name: t\nprotocol: eventual\ndatacenters: 5\npartitions: 1000\nreplicas: 13\nlocal: { basePort: 600 }\n",
        "c.yaml"));
    assertTrue(e.getMessage().endsWith("beyond 65535. Fix: use a basePort from 1 to 536 (the servers then take ports"
        + " basePort to basePort + 64999)."), e.getMessage());
  }

  @Test
  void when_aClusterNameIsOneMegabyte_then_theErrorQuotesItsStartAndLength() {
    String name = "a".repeat(1_000_000);
    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(
        "name: " + name + "\nprotocol: eventual\ndatacenters: 1\npartitions: 1\nlocal: { basePort: 7100 }\n",
        "c.yaml"));
    assertTrue(e.getMessage().length() < 400, e.getMessage().length() + " characters");
    assertTrue(e.getMessage().startsWith("c.yaml:1:7: name: '" + "a".repeat(UserText.SHOWN_MAX)
        + "... (1,000,000 characters)' is not a valid cluster name. Fix: use at most 64"), e.getMessage());
  }

  @Test
  void when_aHistoryKeyIsTenMegabytes_then_theErrorQuotesItsStartAndLength(@TempDir Path dir) throws Exception {
    String key = "k".repeat(10_000_000);
    // an OK GET whose "reads" do not hold its key: the message quoted the key twice (20 MB)
    Path file = Files.writeString(dir.resolve("h.jsonl"), "{\"id\":0,\"session\":1,\"dc\":0,\"type\":\"GET\",\"key\":\""
        + key + "\",\"reads\":{\"y\":\"a\"},\"invokeMicros\":1,\"completeMicros\":2,\"outcome\":\"OK\"}\n");
    IOException e = assertThrows(IOException.class, () -> HistoryFiles.read(file));
    assertTrue(e.getMessage().length() < 1000, e.getMessage().length() + " characters");
    assertTrue(e.getMessage().contains("the \"reads\" of an OK GET of \"" + "k".repeat(UserText.SHOWN_MAX)
        + "... (10,000,000 characters)\" must hold exactly that key"), e.getMessage());
  }

  @Test
  void when_textIsShort_then_itIsQuotedWhole() {
    assertEquals("'eventual'", UserText.quoted("eventual"));
    assertEquals("x".repeat(UserText.SHOWN_MAX), UserText.cut("x".repeat(UserText.SHOWN_MAX)));
    assertEquals("null", UserText.cut(null));
  }
}
