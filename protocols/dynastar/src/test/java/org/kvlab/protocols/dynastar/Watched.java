package org.kvlab.protocols.dynastar;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.consensus.multicast.MulticastLog;

/**
 * DynaStar with its data partitions watched from outside (the simulator runs every node on one thread): the last
 * incarnation of each partition, to check the location invariant over all of them once the run is quiet. One instance
 * per simulated run. Also records the multicast (commands and plans) for the consensus module's multicast checker.
 */
final class Watched implements Protocol {
  private final DynaStar inner = new DynaStar();
  /** partition -> its server (the last incarnation). */
  final Map<Integer, PartitionRole> live = new TreeMap<>();
  /** Every multicast (commands by their destination, plans by the oracle) and every group's deliveries. */
  final MulticastLog log = new MulticastLog();

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public String summary() {
    return inner.summary();
  }

  @Override
  public MessageTypes messages() {
    return inner.messages();
  }

  @Override
  public RecordType<? extends Message> record() {
    return inner.record();
  }

  @Override
  public Server<? extends Message> newServer() {
    return new DynaStarServer() {
      @Override
      PartitionRole newPartition() {
        PartitionRole p = super.newPartition();
        p.observed = log;
        live.put(p.partition(), p);
        return p;
      }

      @Override
      OracleRole newOracle() {
        OracleRole o = super.newOracle();
        o.observed = log;
        return o;
      }
    };
  }

  @Override
  public Client newClient() {
    return inner.newClient();
  }

  @Override
  public Map<String, String> parameters() {
    return inner.parameters();
  }

  @Override
  public void checkParameters(org.kvlab.api.Params params, org.kvlab.api.Topology topology) {
    inner.checkParameters(params, topology);
  }

  /**
   * The location invariant once every partition is quiet (nothing queued, lent, awaited or in flight): every key is
   * held by exactly one partition. Returns the violations (empty if none), or null if some partition is not quiet.
   */
  List<String> locationViolations(List<String> keys) {
    if (live.values().stream().anyMatch(p -> !p.quiescent())) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      List<Integer> holders = new ArrayList<>();
      live.forEach((p, role) -> {
        if (role.holds(k)) {
          holders.add(p);
        }
      });
      if (holders.size() != 1) {
        out.add(k + " held by " + holders);
      }
    }
    return out;
  }
}
