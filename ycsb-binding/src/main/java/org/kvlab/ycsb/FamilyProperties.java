package org.kvlab.ycsb;

import java.util.Properties;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.chirper.FollowerGraph;
import org.kvlab.workload.micro.Micro;
import org.kvlab.workload.tpcc.Tpcc;
import site.ycsb.WorkloadException;

/**
 * {@code kvlab.txnworkload=chirper|tpcc|micro}: the workload family the {@code TX} operations draw from, with its
 * properties (docs/ycsb.md, docs/workloads.md): {@code kvlab.users} (1000), {@code kvlab.followsperuser} (5),
 * {@code kvlab.postshare} (0.15), {@code kvlab.followshare} (0), {@code kvlab.communities} (1) and
 * {@code kvlab.crossshare} (0.05), {@code kvlab.celebrityat} (seconds since this
 * JVM's first operation; unset = never) for Chirper; {@code kvlab.warehouses} (2), {@code kvlab.customers} (30),
 * {@code kvlab.items} (1000) for TPC-C-lite; {@code kvlab.localshare} (0.5) and {@code kvlab.microkeys} (20) for
 * seed 004's micro-benchmark ({@code micro}).
 */
final class FamilyProperties {
  private FamilyProperties() {}

  /** The family {@code p} asks for, or null if {@code kvlab.txnworkload} is not one. */
  static TxnFamily family(Properties p) throws WorkloadException {
    String kind = p.getProperty(KvlabWorkload.TXN_WORKLOAD, "").trim();
    try {
      if (kind.equals(Chirper.NAME)) {
        int users = whole(p, "kvlab.users", "1000");
        String at = p.getProperty("kvlab.celebrityat");
        long atMicros = at == null ? -1 : Math.round(Double.parseDouble(at.trim()) * 1e6);
        FollowerGraph.Spec graph = new FollowerGraph.Spec(users, whole(p, "kvlab.followsperuser", "5"), 1);
        int communities = whole(p, "kvlab.communities", "1");
        if (communities != 1) {
          graph = graph.withCommunities(communities, Double.parseDouble(p.getProperty("kvlab.crossshare", "0.05").trim()));
        }
        return new Chirper(graph, 0.95,
            Double.parseDouble(p.getProperty("kvlab.postshare", "0.15").trim()),
            Double.parseDouble(p.getProperty("kvlab.followshare", "0").trim()), 1000, atMicros, users - 1, 0.2, 0.1);
      }
      if (kind.equals(Tpcc.NAME)) {
        return new Tpcc(whole(p, "kvlab.warehouses", "2"), 10, whole(p, "kvlab.customers", "30"),
            whole(p, "kvlab.items", "1000"), 0.01, 0.15);
      }
      if (kind.equals(Micro.NAME)) {
        return new Micro(Double.parseDouble(p.getProperty("kvlab.localshare", "0.5").trim()),
            whole(p, "kvlab.microkeys", "20"));
      }
      return null;
    } catch (NumberFormatException e) {
      throw new WorkloadException(KvlabWorkload.TXN_WORKLOAD + "=" + kind + ": a property is not a number ("
          + e.getMessage() + "). Fix: give numbers, e.g. kvlab.users=1000 kvlab.celebrityat=200");
    } catch (IllegalArgumentException e) {
      throw new WorkloadException(KvlabWorkload.TXN_WORKLOAD + "=" + kind + ": " + e.getMessage());
    }
  }

  private static int whole(Properties p, String name, String fallback) {
    return Integer.parseInt(p.getProperty(name, fallback).trim());
  }
}
