package org.kvlab.ycsb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.kvlab.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.generator.ExponentialGenerator;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB's core workload plus kvlab's operations, on stock YCSB 0.17.0 (see docs/ycsb.md):
 * <ul>
 *   <li>{@code ampinsertproportion}, {@code ampfactor} (default 100): an amplified insert, a burst of
 *       {@code ampfactor} core inserts of fresh keys, measured as one "AMP-INSERT" (each insert is also
 *       measured as an INSERT by YCSB);
 *   <li>{@code rotxproportion}, {@code rotxkeys} (default 10): a read-only transaction over
 *       {@code rotxkeys} distinct keys chosen by the request distribution, measured as "ROTX";
 *   <li>{@code txproportion}, {@code txkeys} (default 4), {@code txpartitions} (default 2), {@code txpartner}
 *       ({@code uniform} or {@code zipf}, default uniform), {@code txzipfs} (default 2): a multi-key transaction,
 *       measured as "TX", for protocols that offer them (e.g. camu): a home partition (the partition of a key
 *       from the request distribution), then {@code txpartitions - 1} partner partitions chosen uniformly or by
 *       Zipf (rank r = partition home + r, weight 1/r^s, as the CaMu thesis's partner skew), then {@code txkeys}
 *       distinct keys spread round-robin over those partitions (each drawn from the request distribution among
 *       the keys of its partition); it reads every key and writes a new record to each.
 * </ul>
 * With {@code kvlab.txnworkload} ({@code list-append}, {@code rw-register} or {@code bank}) the {@code txproportion}
 * transaction is instead one of that black-box checker workload ({@link org.kvlab.check.txn.TxnGenerator}, as the
 * simulator's {@code --txn-workload}) over its own keys {@code <workload>-0 .. <workload>-<kvlab.txnkeys - 1>}
 * (default 20, e.g. {@code list-append-7}), with
 * {@code kvlab.txnlength} (MIN..MAX, default 1..4), {@code kvlab.txnreadshare} (default 0.5),
 * {@code kvlab.txndistribution} (uniform or zipfian, default uniform) and {@code kvlab.txnlocality} (default 0; the
 * session is the YCSB thread); with {@code kvlab.history} the run's history is then judged by
 * {@code kvlab check --check serializable}. With {@code kvlab.txnworkload=chirper}, {@code tpcc} or {@code micro} the
 * transactions are instead the workload family's ({@link org.kvlab.workload.TxnFamily}; its properties in {@link FamilyProperties}; docs/workloads.md).
 * All proportions, core and kvlab, are weights of one choice: an operation's share is its proportion
 * divided by the sum of all proportions (as in YCSB, which does not require them to add up to 1).
 *
 * <p>YCSB hands the workload its {@code DBWrapper}, not the binding; the thread's {@link KvlabDB} is
 * found through {@link KvlabDB#current()} (YCSB runs {@code DB.init} and {@code doTransaction} on the
 * same thread). Custom operations are recorded in YCSB's {@link Measurements} like DBWrapper records
 * its own, so they appear in the summary, the exporter and the HdrHistogram files.
 *
 * <p>{@code kvlab.runseconds} (set by {@code kvlab bench} on timed runs; whole seconds): the run phase lasts that long
 * from this JVM's first operation, when its threads stop. YCSB's own {@code maxexecutiontime} counts from the moment
 * the threads start, before each opens its session: on a loaded machine that start-up ate most of a short run, whose
 * measured window (which the warm-up counts from the first measured operation) was then short or empty.
 */
public class KvlabWorkload extends CoreWorkload {
  private static final Logger LOG = LoggerFactory.getLogger(KvlabWorkload.class);
  public static final String AMP_INSERT = "AMP-INSERT";
  public static final String ROTX = "ROTX";
  public static final String TX = "TX";

  private Measurements measurements;
  private int ampfactor;
  private int rotxkeys;
  private int txkeys;
  private int txpartitions;
  private org.kvlab.api.TxnPartners partners;
  private org.kvlab.api.Topology topology;
  private boolean reportLatencyForEachError;
  private KvlabClients.Shared preflight;
  private boolean kvlabOperations;
  private final AtomicInteger threadInitFailures = new AtomicInteger();
  private int initFailuresBefore;
  private long errorsBefore;
  /** kvlab.runseconds in nanoseconds; 0 if not set (YCSB's maxexecutiontime or operationcount ends the run). */
  private long runNanos;
  private final AtomicLong firstOperationNanos = new AtomicLong(NOT_STARTED);
  private static final long NOT_STARTED = Long.MIN_VALUE;
  static final String RUN_SECONDS = "kvlab.runseconds";
  static final String TXN_WORKLOAD = "kvlab.txnworkload";
  static final String TXN_KEYS = "kvlab.txnkeys";
  static final String TXN_LENGTH = "kvlab.txnlength";
  static final String TXN_READ_SHARE = "kvlab.txnreadshare";
  static final String TXN_DISTRIBUTION = "kvlab.txndistribution";
  static final String TXN_LOCALITY = "kvlab.txnlocality";
  /** kvlab.txnworkload's generator, its keys in rank order and by partition; null without kvlab.txnworkload. */
  private org.kvlab.check.txn.TxnGenerator txnGenerator;
  /** kvlab.txnworkload=chirper|tpcc|micro: the family's generator, shared by the threads; else null. */
  private org.kvlab.workload.TxnFamily.Generator familyGenerator;
  /** When this JVM's first family transaction was drawn: the family's time 0 (Chirper's celebrity counts from it). */
  private final AtomicLong familyStartNanos = new AtomicLong(NOT_STARTED);
  /** This JVM's datacenter (kvlab.dc): a family's session is dc x threads + thread, distinct over the client JVMs. */
  private int familyDc;
  private final ThreadLocal<Integer> familySession = ThreadLocal.withInitial(() -> 0);
  private List<String> txnAll;
  private List<List<String>> txnByPartition;
  private final ThreadLocal<Integer> threadId = ThreadLocal.withInitial(() -> 0);
  /** Elements and values of kvlab.txnworkload: a random base per JVM, so that the JVMs of one run do not collide. */
  private final AtomicLong txnUnique = new AtomicLong(
      java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 22) << 40);

  @Override
  public void init(Properties p) throws WorkloadException {
    super.init(p);
    measurements = Measurements.getMeasurements();
    reportLatencyForEachError = Boolean.parseBoolean(p.getProperty("reportlatencyforeacherror", "false"));
    double amp = proportion(p, "ampinsertproportion");
    double rotx = proportion(p, "rotxproportion");
    double tx = proportion(p, "txproportion");
    ampfactor = count(p, "ampfactor", 100);
    rotxkeys = count(p, "rotxkeys", 10);
    txkeys = count(p, "txkeys", 4);
    runNanos = p.getProperty(RUN_SECONDS) == null ? 0 : count(p, RUN_SECONDS, 1) * 1_000_000_000L;
    if (rotxkeys > recordcount && rotx > 0) {
      throw new WorkloadException("rotxkeys=" + rotxkeys + " is more than recordcount=" + recordcount
          + ": a read-only transaction reads distinct keys. Fix: lower rotxkeys");
    }

    // Everything the binding needs is checked here, on YCSB's main thread, before any client thread
    // starts: a WorkloadException stops YCSB with one message instead of one stack trace per thread.
    KvlabClients.Target target;
    try {
      target = KvlabClients.target(p);
    } catch (KvlabClients.SetupException e) {
      throw new WorkloadException("kvlab YCSB binding: " + e.getMessage());
    }
    String protocol = target.protocol().name();
    if (rotx > 0 && !target.offersReadOnlyTx()) {
      throw new WorkloadException("rotxproportion=" + rotx + " asks for read-only transactions, which protocol '"
          + protocol + "' does not offer. Fix: set rotxproportion=0, or use a protocol that offers them: "
          + KvlabClients.Target.protocolsWithReadOnlyTx());
    }
    if (tx > 0 && !target.offersTransactions()) {
      throw new WorkloadException("txproportion=" + tx + " asks for multi-key transactions, which protocol '"
          + protocol + "' does not offer. Fix: set txproportion=0, or use a protocol that offers them: "
          + KvlabClients.Target.protocolsWithTransactions());
    }
    txpartitions = count(p, "txpartitions", 2);
    String partner = p.getProperty("txpartner", "uniform").trim();
    double zipfS = proportion(p, "txzipfs", "2");
    topology = target.config().topology();
    org.kvlab.workload.TxnFamily family = FamilyProperties.family(p);
    familyGenerator = family == null ? null : family.generator();
    try {
      familyDc = Integer.parseInt(p.getProperty(KvlabClients.DC, "0").trim());
    } catch (NumberFormatException e) {
      familyDc = 0; // KvlabClients.target refused it already
    }
    txnGenerator = family == null ? txnGenerator(p) : null;
    if ((txnGenerator != null || family != null) && tx == 0) {
      throw new WorkloadException(TXN_WORKLOAD + "=" + p.getProperty(TXN_WORKLOAD).trim() + " draws the TX"
          + " transactions, and txproportion is 0. Fix: set txproportion (e.g. txproportion=1 readproportion=0"
          + " updateproportion=0)");
    }
    if (tx > 0 && txnGenerator == null && family == null) {
      if (!partner.equals("uniform") && !partner.equals("zipf")) {
        throw new WorkloadException("txpartner=" + partner + " is not a partner choice. Fix: uniform or zipf");
      }
      if (txpartitions > topology.partitions()) {
        throw new WorkloadException("txpartitions=" + txpartitions + " is more than the cluster's "
            + topology.partitions() + " partitions. Fix: lower txpartitions");
      }
      if (txkeys < txpartitions || txkeys > recordcount) {
        throw new WorkloadException("txkeys=" + txkeys + " must be at least txpartitions=" + txpartitions
            + " (one key per partition) and at most recordcount=" + recordcount + ". Fix: adjust txkeys");
      }
      partners = new org.kvlab.api.TxnPartners(topology.partitions(), partner, zipfS);
    }
    preflight = KvlabClients.acquire(target); // also keeps the runtime open across the threads' start-up
    try {
      Session probe = preflight.openProbedSession();
      probe.close();
    } catch (KvlabClients.SetupException | RuntimeException e) {
      preflight.release();
      preflight = null;
      throw new WorkloadException("kvlab YCSB binding: " + e.getMessage());
    }

    kvlabOperations = amp > 0 || rotx > 0 || tx > 0;
    if (amp > 0) {
      operationchooser.addValue(amp, AMP_INSERT);
    }
    if (rotx > 0) {
      operationchooser.addValue(rotx, ROTX);
    }
    if (tx > 0) {
      operationchooser.addValue(tx, TX);
    }
    initFailuresBefore = KvlabDB.initFailures();
    errorsBefore = KvlabDB.errors() + KvlabDB.unavailable();
  }

  /** Runs on the YCSB client thread right after {@code DB.init()}: kvlab operations need a KvlabDB there. */
  @Override
  public Object initThread(Properties p, int mythreadid, int threadcount) throws WorkloadException {
    if (kvlabOperations && KvlabDB.current() == null) {
      threadInitFailures.incrementAndGet();
      throw new WorkloadException("ampinsertproportion, rotxproportion and txproportion need -db "
          + KvlabDB.class.getName() + " (no KvlabDB was initialised on YCSB client thread " + mythreadid + ")");
    }
    threadId.set(mythreadid);
    familySession.set(familyDc * threadcount + mythreadid);
    return super.initThread(p, mythreadid, threadcount);
  }

  /** kvlab.txnworkload and its parameters, or null if it is not set; fills the key lists. */
  private org.kvlab.check.txn.TxnGenerator txnGenerator(Properties p) throws WorkloadException {
    String kind = p.getProperty(TXN_WORKLOAD);
    if (kind == null) {
      return null;
    }
    int keys = count(p, TXN_KEYS, 20);
    String length = p.getProperty(TXN_LENGTH, "1..4").trim();
    String[] range = length.split("\\.\\.", -1);
    org.kvlab.check.txn.TxnGenerator g;
    try {
      if (range.length != 2) {
        throw new NumberFormatException();
      }
      g = new org.kvlab.check.txn.TxnGenerator(kind.trim(), Integer.parseInt(range[0].trim()),
          Integer.parseInt(range[1].trim()), proportion(p, TXN_READ_SHARE, "0.5"),
          p.getProperty(TXN_DISTRIBUTION, "uniform").trim(), proportion(p, TXN_LOCALITY, "0"));
    } catch (NumberFormatException e) {
      throw new WorkloadException(TXN_LENGTH + "=" + length + " is not MIN..MAX. Fix: e.g. " + TXN_LENGTH + "=1..4");
    } catch (IllegalArgumentException e) {
      throw new WorkloadException(TXN_WORKLOAD + ": " + e.getMessage());
    }
    txnAll = new ArrayList<>();
    txnByPartition = new ArrayList<>();
    for (int i = 0; i < topology.partitions(); i++) {
      txnByPartition.add(new ArrayList<>());
    }
    for (int i = 0; i < keys; i++) {
      String k = g.kind() + "-" + i;
      txnAll.add(k);
      txnByPartition.get(topology.partitionOf(k)).add(k);
    }
    return g;
  }

  private static double proportion(Properties p, String name) throws WorkloadException {
    return proportion(p, name, "0");
  }

  private static double proportion(Properties p, String name, String fallback) throws WorkloadException {
    String text = p.getProperty(name, fallback).trim();
    try {
      double v = Double.parseDouble(text);
      if (v >= 0 && Double.isFinite(v)) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new WorkloadException(name + "=" + text + " is not a proportion. Fix: use a number >= 0, e.g. 0.1");
  }

  private static int count(Properties p, String name, int fallback) throws WorkloadException {
    String text = p.getProperty(name, String.valueOf(fallback)).trim();
    try {
      int v = Integer.parseInt(text);
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new WorkloadException(name + "=" + text + " is not a count. Fix: use a whole number >= 1");
  }

  @Override
  public boolean doTransaction(DB db, Object threadstate) {
    if (runNanos > 0 && runIsOver()) {
      requestStop(); // every thread stops before its next operation
      return false;
    }
    String op = operationchooser.nextString();
    if (op == null) {
      return false;
    }
    switch (op) {
      case "READ" -> doTransactionRead(db);
      case "UPDATE" -> doTransactionUpdate(db);
      case "INSERT" -> doTransactionInsert(db);
      case "SCAN" -> doTransactionScan(db);
      case AMP_INSERT -> doTransactionAmpInsert(db);
      case ROTX -> doTransactionRotx();
      case TX -> doTransactionTx();
      default -> doTransactionReadModifyWrite(db);
    }
    return true;
  }

  /** {@code ampfactor} core inserts of fresh keys; AMP-INSERT fails if any of them failed. */
  public void doTransactionAmpInsert(DB db) {
    KvlabDB kvlab = kvlab();
    long failuresBefore = kvlab.failures();
    long intended = measurements.getIntendedtartTimeNs();
    long start = System.nanoTime();
    for (int i = 0; i < ampfactor; i++) {
      doTransactionInsert(db);
    }
    long end = System.nanoTime();
    measure(AMP_INSERT, kvlab.failures() == failuresBefore ? Status.OK : kvlab.lastFailure(), intended, start, end);
  }

  /** A read-only transaction over {@code rotxkeys} distinct keys. */
  public void doTransactionRotx() {
    KvlabDB kvlab = kvlab();
    List<String> keys = distinctKeys(rotxkeys);
    Map<String, Map<String, ByteIterator>> result = new HashMap<>();
    long intended = measurements.getIntendedtartTimeNs();
    long start = System.nanoTime();
    Status status = kvlab.readOnlyTx(table, keys, null, result);
    long end = System.nanoTime();
    measure(ROTX, status, intended, start, end);
  }

  /** Hook: a multi-key transaction reading and writing {@code txkeys} keys (init refuses it for now). */
  public void doTransactionTx() {
    KvlabDB kvlab = kvlab();
    if (txnGenerator != null || familyGenerator != null) {
      int session = threadId.get();
      org.kvlab.api.TxnRequest request = familyGenerator != null ? familyTxn(familySession.get()) : txnGenerator.next(
          java.util.concurrent.ThreadLocalRandom.current(), session, txnAll, txnByPartition.get(Math.floorMod(session,
          txnByPartition.size())), txnUnique.incrementAndGet());
      long intended = measurements.getIntendedtartTimeNs();
      long start = System.nanoTime();
      Status status = kvlab.transact(request);
      measure(TX, status, intended, start, System.nanoTime());
      return;
    }
    List<String> keys = txnKeys();
    if (keys == null) {
      measure(TX, Status.BAD_REQUEST, measurements.getIntendedtartTimeNs(), System.nanoTime(), System.nanoTime());
      return;
    }
    Map<String, Map<String, ByteIterator>> writes = new HashMap<>();
    for (String k : keys) {
      Map<String, ByteIterator> record = new HashMap<>();
      record.put("field0", new site.ycsb.RandomByteIterator(fieldlengthgenerator.nextValue().longValue()));
      writes.put(k, record);
    }
    long intended = measurements.getIntendedtartTimeNs();
    long start = System.nanoTime();
    Status status = kvlab.transaction(table, keys, writes, new HashMap<>());
    long end = System.nanoTime();
    measure(TX, status, intended, start, end);
  }

  /** The next transaction of the workload family, at the time since this JVM's first one. */
  private org.kvlab.api.TxnRequest familyTxn(int session) {
    long now = System.nanoTime();
    familyStartNanos.compareAndSet(NOT_STARTED, now);
    return familyGenerator.next(java.util.concurrent.ThreadLocalRandom.current(), session,
        (now - familyStartNanos.get()) / 1000, txnUnique.incrementAndGet());
  }

  private KvlabDB kvlab() {
    KvlabDB kvlab = KvlabDB.current();
    if (kvlab == null) {
      throw new IllegalStateException(getClass().getName() + " needs -db " + KvlabDB.class.getName()
          + " (no KvlabDB was initialised on this YCSB thread)");
    }
    return kvlab;
  }

  /**
   * The keys of one transaction: home partition, partners, then {@code txkeys} distinct keys round-robin over
   * them; null (logged once) if some partition has no key among the first draws (too few records).
   */
  List<String> txnKeys() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    int home = topology.partitionOf(buildKeyName(nextExistingKeynum()));
    List<Integer> parts = partners.choose(random, home, txpartitions);
    Set<String> keys = new LinkedHashSet<>();
    for (int i = 0; keys.size() < txkeys; i++) {
      int part = parts.get(i % parts.size());
      String key = null;
      for (int tries = 0; tries < 200 * topology.partitions() && key == null; tries++) {
        String k = buildKeyName(nextExistingKeynum());
        if (topology.partitionOf(k) == part && !keys.contains(k)) {
          key = k;
        }
      }
      if (key == null) {
        if (!TXN_KEYS_LOGGED.getAndSet(true)) {
          LOG.warn("no free key of partition {} among {} draws: TX counted as BAD_REQUEST. Fix: raise recordcount"
              + " or lower txkeys", part, 200 * topology.partitions());
        }
        return null;
      }
      keys.add(key);
    }
    return new ArrayList<>(keys);
  }

  private static final java.util.concurrent.atomic.AtomicBoolean TXN_KEYS_LOGGED =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** {@code n} distinct existing keys from the request distribution (as CoreWorkload chooses one). */
  private List<String> distinctKeys(int n) {
    Set<String> keys = new LinkedHashSet<>();
    while (keys.size() < n) {
      keys.add(buildKeyName(nextExistingKeynum()));
    }
    return new ArrayList<>(keys);
  }

  private long nextExistingKeynum() {
    long keynum;
    if (keychooser instanceof ExponentialGenerator) {
      do {
        keynum = transactioninsertkeysequence.lastValue() - keychooser.nextValue().intValue();
      } while (keynum < 0);
    } else {
      do {
        keynum = keychooser.nextValue().intValue();
      } while (keynum > transactioninsertkeysequence.lastValue());
    }
    return keynum;
  }

  /** Whether kvlab.runseconds have passed since this JVM's first operation (which this call may be). */
  private boolean runIsOver() {
    long now = System.nanoTime();
    long first = firstOperationNanos.get();
    if (first == NOT_STARTED) {
      return !firstOperationNanos.compareAndSet(NOT_STARTED, now) && now - firstOperationNanos.get() >= runNanos;
    }
    return now - first >= runNanos;
  }

  /** Records one operation the way YCSB's DBWrapper records its own. */
  private void measure(String op, Status status, long intendedStart, long start, long end) {
    String name = status.isOk() ? op : op + "-" + (reportLatencyForEachError ? status.getName() : "FAILED");
    measurements.measure(name, (int) ((end - start) / 1000));
    measurements.measureIntended(name, (int) ((end - intendedStart) / 1000));
    measurements.reportStatus(op, status);
  }

  /**
   * Makes failures impossible to miss: YCSB carries on when a client thread's {@code DB.init} fails and
   * prints a normal summary for the threads left. If any failed, this throws, and YCSB then stops
   * without exporting measurements.
   */
  @Override
  public void cleanup() throws WorkloadException {
    super.cleanup();
    if (preflight != null) {
      KvlabClients.Shared s = preflight;
      preflight = null;
      try {
        s.release();
      } catch (java.io.UncheckedIOException e) {
        throw new WorkloadException(e.getMessage());
      }
    }
    long failed = KvlabDB.errors() + KvlabDB.unavailable() - errorsBefore;
    if (failed > 0) {
      LOG.warn("{} operations failed (ERROR or SERVICE_UNAVAILABLE; the first ones are logged above)", failed);
    }
    int initFailures = KvlabDB.initFailures() - initFailuresBefore + threadInitFailures.get();
    if (initFailures > 0) {
      throw new WorkloadException(initFailures + " YCSB client thread(s) could not start, so the results "
          + "are incomplete and were not exported. Last failure: "
          + (KvlabDB.initFailures() > initFailuresBefore ? KvlabDB.lastInitFailure() : "-db is not KvlabDB"));
    }
  }
}
