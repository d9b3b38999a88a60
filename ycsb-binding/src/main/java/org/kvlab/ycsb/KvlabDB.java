package org.kvlab.ycsb;

import com.google.protobuf.ByteString;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB {@link DB} for any kvlab protocol, on stock {@code site.ycsb:core} 0.17.0. See docs/ycsb.md.
 *
 * <p>All YCSB threads of a JVM share one {@link org.kvlab.runtime.ClientRuntime}; each thread has its own
 * {@link Session}. {@link #init()} returns only once the session has reached every server of its
 * datacenter. A YCSB record (field name -> bytes) is one kvlab value ({@link FieldCodec}).
 *
 * <p>Update semantics ({@code kvlab.update}): {@code auto} (default) writes the given fields as the whole
 * record when they are all {@code fieldcount} fields of a record (YCSB's default workload with
 * fieldcount=1, or writeallfields=true): one PUT. Otherwise it reads the record, replaces the given fields
 * and writes it back (GET + PUT in the session, not atomic: concurrent updates of different fields of one
 * key may lose one of them). {@code merge} always reads first; {@code overwrite} never does (the record
 * becomes exactly the given fields).
 *
 * <p>Statuses: NOT_FOUND for a missing key, SERVICE_UNAVAILABLE when a server or the client refuses
 * because a queue is full (back-pressure), ERROR for every other failure (counted; the first few are
 * logged with their cause), NOT_IMPLEMENTED for scan and delete, which no kvlab protocol offers.
 */
public class KvlabDB extends DB {
  private static final Logger LOG = LoggerFactory.getLogger(KvlabDB.class);
  static final String UPDATE = "kvlab.update";
  /** Per-operation session guarantees (protocols with {@link org.kvlab.api.SessionGuarantees}, e.g. nukv). */
  static final String READ_LEVEL = "kvlab.readlevel";
  static final String WRITE_LEVEL = "kvlab.writelevel";
  /**
   * Share of reads and updates a session sends to another datacenter (chosen at random), as the seed's "10% remote
   * traffic"; measured also as {@code READ-REMOTE} / {@code UPDATE-REMOTE}.
   */
  static final String REMOTE_PROPORTION = "kvlab.remoteproportion";
  /**
   * Whether a remote operation pays the cluster file's emulated WAN delay ({@code emulation.rtt}) between the
   * client's datacenter and the one it goes to, each way: the runtime's emulation delays server links only.
   */
  static final String REMOTE_DELAY = "kvlab.remotedelay";
  /**
   * The consensus workload of seed 001 §10.3 ({@link org.kvlab.workload.ReplicaObjects}, hashed layout): each datacenter
   * has this many objects, and a read or update goes to one of the session's own datacenter's objects with probability
   * {@code kvlab.locality}, else to another datacenter's, instead of YCSB's key. 0 = YCSB's keys.
   */
  static final String OBJECTS_PER_REPLICA = "kvlab.objectsperreplica";
  static final String LOCALITY = "kvlab.locality";
  private static final int ERRORS_LOGGED = 5;

  private static final ThreadLocal<KvlabDB> CURRENT = new ThreadLocal<>();
  private static final AtomicLong ERRORS = new AtomicLong();
  private static final AtomicLong UNAVAILABLE = new AtomicLong();
  private static final AtomicInteger INIT_FAILURES = new AtomicInteger();
  private static final AtomicReference<String> LAST_INIT_FAILURE = new AtomicReference<>();
  private static final Map<String, AtomicBoolean> UNSUPPORTED_LOGGED = new java.util.concurrent.ConcurrentHashMap<>();

  enum UpdateMode { AUTO, MERGE, OVERWRITE }

  private KvlabClients.Shared shared;
  private Session session;
  private UpdateMode updateMode;
  private long fieldcount;
  private org.kvlab.api.SessionGuarantees.ReadLevel readLevel;
  private org.kvlab.api.SessionGuarantees.WriteLevel writeLevel;
  private double remoteProportion;
  private boolean remoteDelay;
  private int home;
  private int datacenters;
  private org.kvlab.config.ClusterConfig.EmulationSpec emulation;
  private java.util.Random remoteRandom;
  private org.kvlab.workload.ReplicaObjects objects;
  private site.ycsb.measurements.Measurements measurements;
  /** Operations of this thread that did not return OK or NOT_FOUND, and the last such status. */
  private long failures;
  private Status lastFailure = Status.OK;

  /** The KvlabDB initialised on the calling YCSB thread (YCSB runs init and the workload on one thread). */
  public static KvlabDB current() {
    return CURRENT.get();
  }

  @Override
  public void init() throws DBException {
    try {
      KvlabClients.Target target = KvlabClients.target(getProperties());
      updateMode = updateMode(getProperties().getProperty(UPDATE, "auto"));
      fieldcount = Long.parseLong(getProperties().getProperty("fieldcount", "10").trim());
      String rl = getProperties().getProperty(READ_LEVEL);
      String wl = getProperties().getProperty(WRITE_LEVEL);
      try {
        readLevel = rl == null ? null : org.kvlab.api.SessionGuarantees.ReadLevel.parse(rl);
        writeLevel = wl == null ? null : org.kvlab.api.SessionGuarantees.WriteLevel.parse(wl);
      } catch (IllegalArgumentException e) {
        throw new KvlabClients.SetupException((rl != null && readLevel == null ? READ_LEVEL : WRITE_LEVEL) + ": "
            + e.getMessage() + " (docs/ycsb.md)");
      }
      remoteProportion = proportion(getProperties().getProperty(REMOTE_PROPORTION, "0"));
      remoteDelay = bool(REMOTE_DELAY, getProperties().getProperty(REMOTE_DELAY, "true"));
      datacenters = target.config().topology().datacenters();
      if (remoteProportion > 0 && datacenters < 2) {
        throw new KvlabClients.SetupException(REMOTE_PROPORTION + "=" + remoteProportion + " needs another datacenter,"
            + " and cluster '" + target.config().name() + "' has 1. Fix: set it to 0, or use a cluster of 2 or more"
            + " datacenters (docs/ycsb.md)");
      }
      objects = objects(getProperties(), datacenters);
      emulation = target.config().emulation();
      remoteRandom = new java.util.Random(System.nanoTime() ^ Thread.currentThread().getId());
      // YCSB's Client sets the measurement properties before any DB starts; only remote operations need them here
      measurements = remoteProportion > 0 ? site.ycsb.measurements.Measurements.getMeasurements() : null;
      shared = KvlabClients.acquire(target);
      try {
        session = shared.openProbedSession();
        if ((readLevel != null || writeLevel != null) && !session.supportsSessionGuarantees()) {
          throw new KvlabClients.SetupException(READ_LEVEL + "/" + WRITE_LEVEL + " are set, but protocol '"
              + session.protocol() + "' has no per-operation levels. Fix: remove them, or use a protocol that has"
              + " them (nukv)");
        }
      } catch (KvlabClients.SetupException | RuntimeException e) {
        shared.release();
        shared = null;
        throw e;
      }
    } catch (KvlabClients.SetupException | RuntimeException e) {
      String message = "kvlab YCSB binding: " + e.getMessage();
      INIT_FAILURES.incrementAndGet();
      LAST_INIT_FAILURE.set(message);
      throw new DBException(message, e);
    }
    home = session.dc();
    CURRENT.set(this);
  }

  private static double proportion(String text) throws KvlabClients.SetupException {
    double d;
    try {
      d = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      d = Double.NaN;
    }
    if (!(d >= 0 && d <= 1)) {
      throw new KvlabClients.SetupException(REMOTE_PROPORTION + "=" + text + " is not a proportion. Fix: write a"
          + " number from 0 to 1, e.g. 0.1 (docs/ycsb.md)");
    }
    return d;
  }

  /** {@code kvlab.objectsperreplica} and {@code kvlab.locality}, or null if the first is unset or 0. */
  static org.kvlab.workload.ReplicaObjects objects(java.util.Properties p, int datacenters)
      throws KvlabClients.SetupException {
    String per = p.getProperty(OBJECTS_PER_REPLICA, "0").trim();
    String loc = p.getProperty(LOCALITY);
    int n;
    try {
      n = Integer.parseInt(per);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0) {
      throw new KvlabClients.SetupException(OBJECTS_PER_REPLICA + "=" + per + " is not a count. Fix: write 0 (YCSB's"
          + " keys) or the objects per datacenter, e.g. 1000 (docs/ycsb.md)");
    }
    if (n == 0) {
      if (loc != null) {
        throw new KvlabClients.SetupException(LOCALITY + " is set without " + OBJECTS_PER_REPLICA + ". Fix: add "
            + OBJECTS_PER_REPLICA + "=1000, or remove " + LOCALITY + " (docs/ycsb.md)");
      }
      return null;
    }
    double l;
    try {
      l = Double.parseDouble(loc == null ? "1" : loc.trim());
    } catch (NumberFormatException e) {
      l = Double.NaN;
    }
    if (!(l >= 0 && l <= 1)) {
      throw new KvlabClients.SetupException(LOCALITY + "=" + loc + " is not a proportion. Fix: write a number from 0"
          + " to 1, e.g. 1.0 (docs/ycsb.md)");
    }
    return new org.kvlab.workload.ReplicaObjects(n, l, true);
  }

  /** The key a read or update uses: YCSB's, or with {@code kvlab.objectsperreplica} an object by the locality rule. */
  private String key(String ycsbKey) {
    return objects == null ? ycsbKey : objects.key(objects.draw(remoteRandom, home, datacenters), datacenters);
  }

  private static boolean bool(String name, String text) throws KvlabClients.SetupException {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (!t.equals("true") && !t.equals("false")) {
      throw new KvlabClients.SetupException(name + "=" + text + " is not true or false. Fix: write true or false"
          + " (docs/ycsb.md)");
    }
    return t.equals("true");
  }

  /** The datacenter of the next read or update: another one with probability {@code kvlab.remoteproportion}. */
  private int nextDc() {
    if (remoteProportion == 0 || remoteRandom.nextDouble() >= remoteProportion) {
      return home;
    }
    int other = remoteRandom.nextInt(datacenters - 1);
    return other >= home ? other + 1 : other;
  }

  /**
   * Runs {@code op} at datacenter {@code dc} (the session moves there and back home), paying the emulated one-way
   * delay each way when {@code kvlab.remotedelay} is on, and records it as {@code <name>-REMOTE} too.
   */
  private Status remote(String name, int dc, java.util.function.Supplier<Status> op) {
    long start = System.nanoTime();
    Status status;
    try {
      session.moveTo(dc);
      try {
        delay(home, dc);
        status = op.get();
        delay(dc, home);
      } finally {
        session.moveTo(home);
      }
    } catch (RuntimeException e) {
      status = failed(name.toLowerCase(Locale.ROOT) + " at datacenter " + dc, "", e);
    }
    long micros = (System.nanoTime() - start) / 1000;
    String measured = name + "-REMOTE";
    measurements.measure(status.isOk() || status == Status.NOT_FOUND ? measured : measured + "-FAILED", (int) micros);
    measurements.reportStatus(measured, status);
    return status;
  }

  private void delay(int from, int to) {
    long millis = remoteDelay ? emulation.oneWayDelayMillis(from, to) : 0;
    if (millis > 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis));
    }
  }

  private static UpdateMode updateMode(String text) throws KvlabClients.SetupException {
    try {
      return UpdateMode.valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new KvlabClients.SetupException(UPDATE + "=" + text + " is not an update mode. Fix: use auto, merge or "
          + "overwrite (docs/ycsb.md)");
    }
  }

  @Override
  public void cleanup() throws DBException {
    if (CURRENT.get() == this) {
      CURRENT.remove();
    }
    if (session != null) {
      session.close();
      session = null;
    }
    if (shared != null) {
      KvlabClients.Shared s = shared;
      shared = null;
      try {
        s.release();
      } catch (java.io.UncheckedIOException e) {
        throw new DBException(e.getMessage(), e);
      }
    }
  }

  private Optional<ByteString> readKey(String key) {
    return readLevel == null ? session.get(key) : session.get(key, readLevel);
  }

  private void writeKey(String key, ByteString value) {
    if (writeLevel == null) {
      session.put(key, value);
    } else {
      session.put(key, value, writeLevel);
    }
  }

  /** The protocol this thread's session runs. */
  public String protocol() {
    return session.protocol();
  }

  public boolean supportsReadOnlyTx() {
    return session.supportsReadOnlyTx();
  }

  /** Whether this thread's session offers multi-key (read-write) transactions (its protocol has the capability, e.g. CaMu). */
  public boolean supportsTransactions() {
    return session != null && session.supportsTransactions();
  }

  @Override
  public Status read(String table, String ycsbKey, Set<String> fields, Map<String, ByteIterator> result) {
    String key = key(ycsbKey);
    int dc = nextDc();
    return dc == home ? readHere(key, fields, result) : remote("READ", dc, () -> readHere(key, fields, result));
  }

  private Status readHere(String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Optional<ByteString> value = readKey(key);
      if (value.isEmpty()) {
        return Status.NOT_FOUND;
      }
      FieldCodec.decode(value.get(), fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("read", key, e);
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      writeKey(key, FieldCodec.encode(values));
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("insert", key, e);
    }
  }

  @Override
  public Status update(String table, String ycsbKey, Map<String, ByteIterator> values) {
    String key = key(ycsbKey);
    int dc = nextDc();
    return dc == home ? updateHere(key, values) : remote("UPDATE", dc, () -> updateHere(key, values));
  }

  private Status updateHere(String key, Map<String, ByteIterator> values) {
    try {
      boolean whole = updateMode == UpdateMode.OVERWRITE || (updateMode == UpdateMode.AUTO && values.size() >= fieldcount);
      if (whole) {
        writeKey(key, FieldCodec.encode(values));
        return Status.OK;
      }
      Map<String, ByteIterator> record = new LinkedHashMap<>();
      Optional<ByteString> old = readKey(key);
      if (old.isPresent()) {
        FieldCodec.decode(old.get(), null, record);
      }
      record.putAll(values);
      writeKey(key, FieldCodec.encode(record));
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("update", key, e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return unsupported("scan", "set scanproportion=0");
  }

  @Override
  public Status delete(String table, String key) {
    return unsupported("delete", "do not use delete operations");
  }

  /**
   * Reads {@code keys} in one read-only transaction (one causally consistent snapshot); {@code result}
   * gets an entry for each key that exists. NOT_IMPLEMENTED if the protocol has no read-only transactions.
   */
  public Status readOnlyTx(String table, Collection<String> keys, Set<String> fields,
      Map<String, Map<String, ByteIterator>> result) {
    if (!session.supportsReadOnlyTx()) {
      return unsupported("read-only transaction", "set rotxproportion=0 or use a protocol with read-only "
          + "transactions: " + KvlabClients.Target.protocolsWithReadOnlyTx());
    }
    try {
      for (Map.Entry<String, Optional<ByteString>> e : session.readOnlyTx(keys).entrySet()) {
        if (e.getValue().isPresent()) {
          Map<String, ByteIterator> record = new HashMap<>();
          FieldCodec.decode(e.getValue().get(), fields, record);
          result.put(e.getKey(), record);
        }
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("read-only transaction", keys.toString(), e);
    }
  }

  /**
   * A one-shot multi-key transaction: reads {@code reads} (their records go to {@code result}) and writes
   * {@code writes}, atomically, for protocols that offer {@link org.kvlab.api.Transactions} (e.g. camu).
   */
  public Status transaction(String table, Collection<String> reads, Map<String, Map<String, ByteIterator>> writes,
      Map<String, Map<String, ByteIterator>> result) {
    if (!session.supportsTransactions()) {
      return unsupported("transaction", "set txproportion=0 or use a protocol with multi-key transactions: "
          + KvlabClients.Target.protocolsWithTransactions());
    }
    try {
      Map<String, ByteString> w = new java.util.TreeMap<>();
      writes.forEach((k, v) -> w.put(k, FieldCodec.encode(v)));
      org.kvlab.api.TxnResult r = session.transact(org.kvlab.api.TxnRequest.of(new java.util.ArrayList<>(reads), w));
      for (Map.Entry<String, Optional<ByteString>> e : r.reads().entrySet()) {
        if (e.getValue().isPresent()) {
          Map<String, ByteIterator> record = new HashMap<>();
          FieldCodec.decode(e.getValue().get(), null, record);
          result.put(e.getKey(), record);
        }
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("transaction", reads.toString(), e);
    }
  }

  /**
   * One transaction as asked ({@code kvlab.txnworkload}: list-append, rw-register or bank, whose values are the
   * checkers' and not YCSB records), for protocols that offer {@link org.kvlab.api.Transactions}.
   */
  public Status transact(org.kvlab.api.TxnRequest request) {
    if (!session.supportsTransactions()) {
      return unsupported("transaction", "set txproportion=0 or use a protocol with multi-key transactions: "
          + KvlabClients.Target.protocolsWithTransactions());
    }
    try {
      session.transact(request);
      return Status.OK;
    } catch (RuntimeException e) {
      return failed("transaction", request.keys().toString(), e);
    }
  }

  private Status unsupported(String op, String fix) {
    if (UNSUPPORTED_LOGGED.computeIfAbsent(op, k -> new AtomicBoolean()).compareAndSet(false, true)) {
      LOG.warn("{} is not supported by protocol '{}': YCSB counts it as NOT_IMPLEMENTED. Fix: {}", op,
          session == null ? "?" : session.protocol(), fix);
    }
    return note(Status.NOT_IMPLEMENTED);
  }

  private Status failed(String op, String key, RuntimeException e) {
    boolean backPressure = isBackPressure(e);
    long n = (backPressure ? UNAVAILABLE : ERRORS).incrementAndGet();
    if (n <= ERRORS_LOGGED) {
      LOG.warn("{} {} failed ({} #{}{}): {}", op, key, backPressure ? "SERVICE_UNAVAILABLE" : "ERROR", n,
          n == ERRORS_LOGGED ? ", further ones are only counted" : "", e.toString(), e.getCause());
    }
    return note(backPressure ? Status.SERVICE_UNAVAILABLE : Status.ERROR);
  }

  private Status note(Status s) {
    failures++;
    lastFailure = s;
    return s;
  }

  /** A full queue on the server or in the client: the operation was refused and did not take effect. */
  static boolean isBackPressure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BackPressureException || t instanceof org.kvlab.api.OverloadedException) {
        return true;
      }
    }
    return false;
  }

  /** Failed operations (not OK, not NOT_FOUND) of this thread so far; the workload uses it for bursts. */
  long failures() {
    return failures;
  }

  Status lastFailure() {
    return lastFailure;
  }

  /** Operations of this JVM that failed with ERROR / SERVICE_UNAVAILABLE. */
  public static long errors() {
    return ERRORS.get();
  }

  public static long unavailable() {
    return UNAVAILABLE.get();
  }

  /** YCSB threads of this JVM whose init failed, and the last failure's message (null if none). */
  static int initFailures() {
    return INIT_FAILURES.get();
  }

  static String lastInitFailure() {
    return LAST_INIT_FAILURE.get();
  }
}
