package org.kvlab.ycsb;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * A reference point, not a kvlab protocol: Redis behind the same YCSB client, workload and bench harness
 * as kvlab's protocols (the like-for-like comparison {@code anchor-measurements.md} asks for; its Redis
 * figures came from redis-benchmark, a C client). Like YCSB's own redis binding (0.17.0, not published
 * to Maven Central): one Jedis connection per YCSB thread, a record is a hash (HGETALL/HMGET to read,
 * HMSET to insert and update). Unlike it, insert does not also maintain a sorted-set index for scans, so
 * every operation is one round trip as in kvlab; scan is not supported.
 *
 * <p>Properties: {@code redis.host} (default 127.0.0.1), {@code redis.port} (6379), {@code redis.timeout}
 * (milliseconds, 10000). {@code scripts/bench/redis-anchor} starts a Redis without persistence and runs
 * {@code experiments/redis-anchor.yaml} against it, interleaved with the kvlab anchor.
 */
public class RedisDB extends DB {
  private Jedis jedis;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String host = p.getProperty("redis.host", "127.0.0.1");
    String port = p.getProperty("redis.port", "6379");
    try {
      jedis = new Jedis(host, Integer.parseInt(port.trim()), Integer.parseInt(p.getProperty("redis.timeout", "10000").trim()));
      jedis.connect();
      jedis.ping();
    } catch (NumberFormatException e) {
      throw new DBException("redis.port / redis.timeout must be whole numbers: " + e.getMessage());
    } catch (JedisException e) {
      if (jedis != null) {
        jedis.close();
      }
      throw new DBException("cannot reach Redis at " + host + ":" + port + " (" + e.getMessage() + "). Fix: start "
          + "redis-server there (scripts/bench/redis-anchor does), or set redis.host and redis.port");
    }
  }

  @Override
  public void cleanup() {
    if (jedis != null) {
      jedis.close();
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      if (fields == null) {
        Map<String, String> all = jedis.hgetAll(key);
        if (all.isEmpty()) {
          return Status.NOT_FOUND;
        }
        StringByteIterator.putAllAsByteIterators(result, all);
      } else {
        String[] names = fields.toArray(new String[0]);
        List<String> values = jedis.hmget(key, names);
        boolean any = false;
        for (int i = 0; i < names.length; i++) {
          if (values.get(i) != null) {
            result.put(names[i], new StringByteIterator(values.get(i)));
            any = true;
          }
        }
        if (!any) {
          return Status.NOT_FOUND;
        }
      }
      return Status.OK;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return write(key, values);
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return write(key, values);
  }

  private Status write(String key, Map<String, ByteIterator> values) {
    try {
      Map<String, String> fields = new HashMap<>();
      StringByteIterator.putAllAsStrings(fields, values);
      return "OK".equals(jedis.hmset(key, fields)) ? Status.OK : Status.ERROR;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      return jedis.del(key) == 0 ? Status.NOT_FOUND : Status.OK;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED;
  }
}
