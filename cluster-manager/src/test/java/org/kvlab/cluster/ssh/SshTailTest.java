package org.kvlab.cluster.ssh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.FileTail;

/**
 * Goal: a remote client's growing files are followed with the bytes the local reader gives: the command
 * {@link SshTail} sends (run here by {@code sh}, as the host's shell would) returns, per file, exactly the bytes past
 * the offsets asked for, capped, binary-safe, leaving out odd names and unchanged files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SshTailTest {

  @Test
  void when_filesGrow_then_theRemoteCommandReturnsWhatTheLocalReaderDoes(@TempDir Path dir) throws Exception {
    Path hdr = dir.resolve("hdr");
    Files.createDirectories(hdr);
    Files.writeString(hdr.resolve("READ.hdr"), "#header\n1.0,1.0,2.0,HISTFAAAA\n", StandardCharsets.US_ASCII);
    Files.write(hdr.resolve("UPDATE.hdr"), new byte[] {0, (byte) 0xff, '\n', (byte) 0xc3});
    Files.writeString(hdr.resolve("odd name.hdr"), "left out\n");
    Map<String, Long> offsets = new HashMap<>();

    Map<String, byte[]> first = viaShell(hdr, offsets, 1 << 20);
    assertEquals(List.of("READ.hdr", "UPDATE.hdr"), List.copyOf(first.keySet()));
    assertSame(FileTail.readNew(hdr, offsets, 1 << 20), first);

    offsets.put("READ.hdr", (long) first.get("READ.hdr").length);
    offsets.put("UPDATE.hdr", (long) first.get("UPDATE.hdr").length);
    assertTrue(viaShell(hdr, offsets, 1 << 20).isEmpty(), "nothing new");

    Files.writeString(hdr.resolve("READ.hdr"), "2.0,1.0,3.0,HISTFBBBB\n", StandardCharsets.US_ASCII,
        StandardOpenOption.APPEND);
    Map<String, byte[]> second = viaShell(hdr, offsets, 5);
    assertEquals(List.of("READ.hdr"), List.copyOf(second.keySet()));
    assertEquals("2.0,1", new String(second.get("READ.hdr"), StandardCharsets.US_ASCII), "capped at 5 bytes");
    assertSame(FileTail.readNew(hdr, offsets, 5), second);

    assertTrue(viaShell(dir.resolve("missing"), Map.of(), 100).isEmpty(), "a missing directory gives nothing");
  }

  private static void assertSame(Map<String, byte[]> expected, Map<String, byte[]> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k));
  }

  private static Map<String, byte[]> viaShell(Path remoteDir, Map<String, Long> offsets, int max) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", SshTail.command(remoteDir.toString(), offsets, max))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "sh did not finish");
    assertEquals(0, p.exitValue(), out);
    return SshTail.parse(out, offsets);
  }
}
