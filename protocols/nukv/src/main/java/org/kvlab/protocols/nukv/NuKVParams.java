package org.kvlab.protocols.nukv;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kvlab.api.Params;
import org.kvlab.api.SessionGuarantees.ReadLevel;
import org.kvlab.api.SessionGuarantees.WriteLevel;

/** NuKV's parameters (the cluster file's {@code params}), with their defaults. */
final class NuKVParams {
  static final Map<String, String> DECLARED = new LinkedHashMap<>();

  static {
    DECLARED.put("hlc", "true/false, default true: stamp PUTs with the leader's hybrid logical clock from the"
        + " client's dt (wait-free writes); false = the variant without HLC, where a PUT waits until the leader"
        + " has committed what the session's write level depends on");
    DECLARED.put("readLevel", "eventual | mr | ryw | mr+ryw, default eventual: the read level of plain get()"
        + " (SessionGuarantees.get takes one per operation)");
    DECLARED.put("writeLevel", "eventual | mw | wfr | mw+wfr, default eventual: the write level of plain put()");
    DECLARED.put("electionTimeout", "duration, default 500ms: MicroRaft's leader election timeout");
    DECLARED.put("heartbeatTimeout", "duration in whole seconds (at least 2s), default 2s: how long followers wait"
        + " for the leader before electing another (MicroRaft's granularity is seconds)");
    DECLARED.put("forwardPeriod", "duration, default 1ms: how often a forwarder ships new committed writes");
    DECLARED.put("resendAfter", "duration, default 200ms: a forwarder resends writes not acknowledged by then");
    DECLARED.put("retargetAfter", "duration, default 1s: a forwarder that has had no answer for this long from the"
        + " replica it sends another datacenter's writes to (a crashed leader) sends them to the next replica of that"
        + " group, which names its new leader once it has one");
    DECLARED.put("batch", "integer, default 256: most writes in one forwarded batch");
    DECLARED.put("waitMax", "duration, default 1500ms: a GET (or, without HLC, a PUT) that the replica cannot"
        + " serve by then fails (nothing happened; the client may retry elsewhere)");
    DECLARED.put("snapshotEvery", "integer, default 50000: a group's replicas snapshot their state (the newest version"
        + " of every key) every this many Raft commits (local PUTs and forwarded writes alike) and drop the log before"
        + " it; a replica too far behind receives the leader's snapshot. A snapshot pauses the replica while it is"
        + " taken (its journal write follows, snapshotWriteBytes a turn), and a restart or a stall watchdog's rebuild"
        + " of the Raft node replays the log after the snapshot, up to this many entries (docs/benchmarks/nukv.md)");
    DECLARED.put("snapshotChunkKeys", "integer, default 1000: keys per snapshot chunk (one Raft message and one journal"
        + " record each)");
    DECLARED.put("snapshotWriteBytes", "integer, default 262144: bytes of a replica's own snapshot written to its Raft"
        + " journal per event-loop turn (a turn every millisecond after the snapshot is taken; the log before the"
        + " snapshot is dropped once all of it is written)");
    DECLARED.put("retryAfter", "duration, default 20ms: a replica that knows no leader holds a PUT this long"
        + " before telling the client to retry");
  }

  boolean hlc;
  ReadLevel readLevel;
  WriteLevel writeLevel;
  Duration electionTimeout;
  Duration heartbeatTimeout;
  Duration forwardPeriod;
  Duration resendAfter;
  Duration retargetAfter;
  int batch;
  Duration waitMax;
  Duration retryAfter;
  int snapshotEvery;
  int snapshotChunkKeys;
  int snapshotWriteBytes;

  NuKVParams read(Params params) {
    hlc = params.bool("hlc", true);
    readLevel = ReadLevel.parse(params.string("readLevel", "eventual"));
    writeLevel = WriteLevel.parse(params.string("writeLevel", "eventual"));
    electionTimeout = params.duration("electionTimeout", Duration.ofMillis(500));
    heartbeatTimeout = params.duration("heartbeatTimeout", Duration.ofSeconds(2));
    forwardPeriod = params.duration("forwardPeriod", Duration.ofMillis(1));
    resendAfter = params.duration("resendAfter", Duration.ofMillis(200));
    retargetAfter = params.duration("retargetAfter", Duration.ofSeconds(1));
    if (retargetAfter.compareTo(resendAfter) <= 0) {
      throw new IllegalArgumentException("params.retargetAfter must be longer than params.resendAfter (a forwarder"
          + " resends to the same replica before it gives up on it), got " + retargetAfter.toMillis() + " ms and "
          + resendAfter.toMillis() + " ms: raise retargetAfter");
    }
    batch = params.intValue("batch", 256);
    waitMax = params.duration("waitMax", Duration.ofMillis(1500));
    retryAfter = params.duration("retryAfter", Duration.ofMillis(20));
    snapshotEvery = params.intValue("snapshotEvery", 50_000);
    if (snapshotEvery < 10) {
      throw new IllegalArgumentException("params.snapshotEvery must be at least 10 (Raft commits between snapshots),"
          + " got " + snapshotEvery);
    }
    snapshotChunkKeys = params.intValue("snapshotChunkKeys", NuKVServer.SNAPSHOT_CHUNK_KEYS);
    snapshotWriteBytes = params.intValue("snapshotWriteBytes", NuKVServer.SNAPSHOT_WRITE_BYTES);
    if (snapshotChunkKeys < 1 || snapshotWriteBytes < 1) {
      throw new IllegalArgumentException("params.snapshotChunkKeys and params.snapshotWriteBytes must be at least 1,"
          + " got " + snapshotChunkKeys + " and " + snapshotWriteBytes);
    }
    if (batch < 1) {
      throw new IllegalArgumentException("params.batch must be at least 1, got " + batch);
    }
    return this;
  }
}
