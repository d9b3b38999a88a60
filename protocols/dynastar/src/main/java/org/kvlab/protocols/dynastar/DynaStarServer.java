package org.kvlab.protocols.dynastar;

import org.kvlab.api.Handlers;
import org.kvlab.api.Server;

/**
 * A DynaStar server: the oracle on the topology's last partition ({@link OracleRole}), a data partition on every
 * other ({@link PartitionRole}). One server per partition saves its whole protocol state in the kit's slot at the end
 * of every turn, so a crashed server restarts where it stopped; a replica of a replicated partition ({@link Groups})
 * keeps its group's Raft journal in the store and rebuilds its state from the group's snapshot and log
 * (docs/protocols.md#dynastar).
 */
class DynaStarServer extends Server<Record> {
  private PartitionRole partition;
  private OracleRole oracle;

  @Override
  protected void register(Handlers on) {
    if (partition() == DynaStar.oracle(topology())) {
      oracle = newOracle();
      oracle.register(on);
    } else {
      partition = newPartition();
      partition.register(on);
    }
  }

  /** The oracle's logic (tests observe it through a subclass). */
  OracleRole newOracle() {
    return new OracleRole(context());
  }

  /** The data partition's logic (tests observe it through a subclass). */
  PartitionRole newPartition() {
    return new PartitionRole(context());
  }

  @Override
  protected void onStart() {
    DynaStar.check(params(), topology()); // the loader's rules, for servers started otherwise
    if (oracle != null) {
      oracle.start();
    } else {
      partition.start();
    }
  }

  @Override
  public String role() {
    return oracle != null ? "oracle plan=" + oracle.applied() : "partition plan=" + partition.plan();
  }

  /** The data partition's logic, null at the oracle (tests). */
  PartitionRole partitionRole() {
    return partition;
  }
}
