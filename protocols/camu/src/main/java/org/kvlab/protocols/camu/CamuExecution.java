package org.kvlab.protocols.camu;

import com.google.protobuf.ByteString;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.Topology;
import org.kvlab.api.TxnProcedures;
import org.kvlab.store.VersionedStore;

/** Deterministic execution of one transaction's part at one partition: what it reads, what it writes, its result. */
final class CamuExecution {
  private CamuExecution() {}

  /**
   * Runs {@code t} on partition {@code me}'s keys in {@code store} (its reads, then its procedure or its writes, each
   * written at version (ts, tid)); returns the participant's result for the origin. {@code seq} is the partition's
   * execution sequence number, set for transactions of the Transactions API only; {@code execMicros} the clock.
   */
  static PartResult run(Txn t, int me, Topology topology, VersionedStore<Record> store, long seq, long execMicros) {
    PartResult.Builder r = PartResult.newBuilder().setTid(t.getTid()).setPartition(me).setTs(t.getTs())
        .setExec(execMicros);
    if (t.getApi()) {
      r.setSeq(seq);
    }
    TreeSet<String> keys = new TreeSet<>();
    Map<String, Optional<ByteString>> read = new TreeMap<>();
    for (String k : t.getReadsList()) {
      if (topology.partitionOf(k) == me) {
        keys.add(k);
        Optional<ByteString> v = store.newest(k).map(Record::getValue);
        read.put(k, v);
        r.addReads(KeyValue.newBuilder().setKey(k).setFound(v.isPresent()).setValue(v.orElse(ByteString.EMPTY)));
      }
    }
    Map<String, ByteString> writes = new TreeMap<>();
    if (!t.getProcedure().isEmpty()) {
      writes.putAll(TxnProcedures.run(t.getProcedure(), t.getArgsList(), read));
    } else {
      t.getWritesMap().forEach((k, v) -> {
        if (topology.partitionOf(k) == me) {
          writes.put(k, v);
        }
      });
    }
    for (Map.Entry<String, ByteString> w : writes.entrySet()) {
      keys.add(w.getKey());
      store.put(w.getKey(), Record.newBuilder().setValue(w.getValue()).setTs(t.getTs()).setTid(t.getTid()).build());
      r.addApplied(KeyValue.newBuilder().setKey(w.getKey()).setFound(true).setValue(w.getValue()));
    }
    return r.addAllKeys(keys).build();
  }
}
