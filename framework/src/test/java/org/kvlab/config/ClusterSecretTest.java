package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig.Limits;

/** The cluster secret file: created owner-only, refused when others can read it, one secret under races. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClusterSecretTest {
  private static final byte[] MESSAGE = "m".getBytes(StandardCharsets.UTF_8);

  @Test
  void when_created_then_ownerOnlyRandomHexThatLoadsBackAndIsNeverPrinted(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("a/b/secret");
    ClusterSecret created = ClusterSecret.loadOrCreate(file);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    String hex = Files.readString(file).trim();
    assertTrue(hex.matches("[0-9a-f]{64}"), hex);
    assertArrayEquals(created.hmac(MESSAGE), ClusterSecret.load(file).hmac(MESSAGE));
    assertFalse(created.toString().contains(hex));
    assertFalse(ClusterSecret.loadOrCreate(dir.resolve("other")).verify(MESSAGE, created.hmac(MESSAGE)));
    try (var files = Files.list(file.getParent())) {
      assertEquals(1, files.count(), "no temporary file is left behind");
    }
  }

  @Test
  void when_fileIsReadableByOthersMissingOrMalformed_then_theErrorNamesTheFix(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secret");
    ClusterSecret.loadOrCreate(file);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    ClusterSecret.SecretException e = assertThrows(ClusterSecret.SecretException.class, () -> ClusterSecret.load(file));
    assertTrue(e.getMessage().contains("accessible to other users") && e.getMessage().contains("chmod 600 " + file),
        e.getMessage());

    e = assertThrows(ClusterSecret.SecretException.class, () -> ClusterSecret.load(dir.resolve("none")));
    assertTrue(e.missing());
    assertTrue(e.getMessage().contains("./kvlab local up"), e.getMessage());

    Path bad = Files.createFile(dir.resolve("bad"), PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    Files.writeString(bad, "not hex\n");
    e = assertThrows(ClusterSecret.SecretException.class, () -> ClusterSecret.load(bad));
    assertTrue(e.getMessage().contains("hex digits") && e.getMessage().contains("Fix:"), e.getMessage());
  }

  @Test
  void when_manyCreateAtOnce_then_allGetTheSameSecret(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secret");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<ClusterSecret>> all = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        all.add(pool.submit(() -> ClusterSecret.loadOrCreate(file)));
      }
      byte[] first = all.get(0).get().hmac(MESSAGE);
      for (Future<ClusterSecret> f : all) {
        assertArrayEquals(first, f.get().hmac(MESSAGE));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void when_clusterFileHasASecuritySection_then_itIsRead_andAShortTokenIsRefused() throws Exception {
    ClusterConfig c = ClusterConfig.parse(ClusterConfigLoadTest.MINIMAL
        + "security:\n  secretFile: /var/tmp/t.secret\n  clientToken: abcdefghijklmnopqrstuvwxyz\n"
        + "limits:\n  handshakeMillis: 2000\n  clientIdleSeconds: 0\n", "s.yaml");
    assertEquals(Path.of("/var/tmp/t.secret"), c.security().secretFile());
    assertEquals("abcdefghijklmnopqrstuvwxyz", c.security().clientToken());
    assertFalse(c.toString().contains("abcdefghijklmnopqrstuvwxyz"), "the token is not printed");
    assertEquals(new Limits(Limits.FRAME_BYTES_MAX_DEFAULT, Limits.PEER_QUEUE_MESSAGES_MAX_DEFAULT,
        Limits.CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT, 2000, 0), c.limits());

    ClusterConfig d = ClusterConfig.parse(ClusterConfigLoadTest.MINIMAL, "d.yaml");
    assertEquals(Path.of(".kvlab/local/t/secret").toAbsolutePath().normalize(), d.security().secretFile());
    assertNull(d.security().clientToken());

    ConfigException e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(ClusterConfigLoadTest.MINIMAL
        + "security:\n  clientToken: short\n", "t.yaml"));
    assertTrue(e.getMessage().contains("shorter than 16") && e.getMessage().contains("openssl rand"), e.getMessage());
    e = assertThrows(ConfigException.class, () -> ClusterConfig.parse(ClusterConfigLoadTest.MINIMAL
        + "security:\n  secret: abc\n", "u.yaml"));
    assertTrue(e.getMessage().contains("secretFile"), e.getMessage());
  }
}
