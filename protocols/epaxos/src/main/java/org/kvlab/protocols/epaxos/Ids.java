package org.kvlab.protocols.epaxos;

import java.util.Collection;
import java.util.List;

/**
 * Instance ids in memory: (replica, instance) packed in one long, replica in the top 16 bits, so that sorting the
 * longs sorts by replica, then instance; and the durable map's string key of an instance (zero-padded: the map's
 * sorted keys list one replica's instances in order).
 */
final class Ids {
  private Ids() {}

  static long of(int replica, long instance) {
    return ((long) replica << 48) | instance;
  }

  static long of(InstanceId id) {
    return of(id.getReplica(), id.getInstance());
  }

  static int replica(long id) {
    return (int) (id >>> 48);
  }

  static long instance(long id) {
    return id & ((1L << 48) - 1);
  }

  static InstanceId proto(long id) {
    return InstanceId.newBuilder().setReplica(replica(id)).setInstance(instance(id)).build();
  }

  static List<InstanceId> protos(Collection<Long> ids) {
    return ids.stream().map(Ids::proto).toList();
  }

  static String key(long id) {
    return key(replica(id), instance(id));
  }

  static String key(int replica, long instance) {
    return String.format("%03d.%015d", replica, instance);
  }

  static String show(long id) {
    return replica(id) + "." + instance(id);
  }
}
