package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The Redis reference binding against a redis-server this test starts on a free loopback port (without
 * persistence) and stops; {@code scripts/test} installs redis-server where it is missing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisDBTest {

  @Test
  void when_redisRuns_then_whatIsWrittenIsReadBack(@TempDir Path dir) throws Exception {
    int port = freePort();
    Process redis = startRedis(port, dir);
    RedisDB db = db(port);
    try {
      db.init();
      assertEquals(Status.NOT_FOUND, db.read("usertable", "user1", null, new HashMap<>()));
      assertEquals(Status.OK, db.insert("usertable", "user1", fields("field0", "a", "field1", "b")));
      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "user1", null, all));
      assertEquals(Map.of("field0", "a", "field1", "b"), strings(all));
      assertEquals(Status.OK, db.update("usertable", "user1", fields("field1", "c")));
      Map<String, ByteIterator> one = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field1", "field9"), one));
      assertEquals(Map.of("field1", "c"), strings(one));
      assertEquals(Status.OK, db.delete("usertable", "user1"));
      assertEquals(Status.NOT_FOUND, db.read("usertable", "user1", Set.of("field1"), new HashMap<>()));
      assertEquals(Status.NOT_IMPLEMENTED, db.scan("usertable", "user1", 10, null, new java.util.Vector<>()));
    } finally {
      db.cleanup();
      redis.destroy();
      assertTrue(redis.waitFor(10, TimeUnit.SECONDS), "redis-server did not stop");
    }
  }

  @Test
  void when_redisIsNotThere_then_initNamesTheAddressAndTheFix() throws Exception {
    int port = freePort();
    DBException e = assertThrows(DBException.class, () -> db(port).init());
    assertTrue(e.getMessage().startsWith("cannot reach Redis at 127.0.0.1:" + port), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: start redis-server there"), e.getMessage());
  }

  private static RedisDB db(int port) {
    RedisDB db = new RedisDB();
    Properties p = new Properties();
    p.setProperty("redis.host", "127.0.0.1");
    p.setProperty("redis.port", Integer.toString(port));
    p.setProperty("redis.timeout", "5000");
    db.setProperties(p);
    return db;
  }

  private static Process startRedis(int port, Path dir) throws Exception {
    String binary = redisServer();
    Process p = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--dir", dir.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
        return p;
      } catch (IOException notYet) {
        if (!p.isAlive()) {
          throw new AssertionError("redis-server exited: " + Files.readString(dir.resolve("redis.log")));
        }
        Thread.sleep(50);
      }
    }
    p.destroyForcibly();
    throw new AssertionError("redis-server did not listen on port " + port + " within 10 s");
  }

  private static String redisServer() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(d, "redis-server"))) {
        return Path.of(d, "redis-server").toString();
      }
    }
    throw new AssertionError("redis-server is not installed. Fix: run the tests with scripts/test (it installs"
        + " redis-server), or apt-get install redis-server");
  }

  /** A port reserved for this JVM and free on loopback (not an ephemeral one, which a connection may take first). */
  private static int freePort() {
    return org.kvlab.runtime.LoopbackPorts.freeBlock(1);
  }

  private static Map<String, ByteIterator> fields(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  private static Map<String, String> strings(Map<String, ByteIterator> m) {
    Map<String, String> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }
}
