package org.kvlab.api;

import com.google.protobuf.Message;
import java.util.Map;

/**
 * A protocol plug-in, found by name through {@link java.util.ServiceLoader}: list the implementing class
 * in {@code META-INF/services/org.kvlab.api.Protocol}. A cluster file that says {@code protocol: eventual}
 * makes the CLI, YCSB binding and simulator load the protocol whose {@link #name()} is "eventual".
 */
public interface Protocol {
  /** Short lower-case name used in cluster files, e.g. {@code gentlerain}. */
  String name();

  /** One line for {@code kvlab protocols} and error messages. */
  String summary();

  /** Every message type clients and servers exchange. */
  MessageTypes messages();

  /** The record type servers store and how its versions are ordered. */
  RecordType<? extends Message> record();

  /** A fresh server instance for one node. */
  Server<? extends Message> newServer();

  /** A fresh client instance for one session. */
  Client newClient();

  /**
   * The parameters this protocol reads from a cluster file's {@code params} section: each name
   * with one line saying its form, default and meaning, e.g. {@code "heartbeat" -> "duration, default
   * 10ms: how often a server with no writes to replicate sends a heartbeat"}. A cluster file setting any other parameter is refused with this list, so a misspelt parameter does not silently
   * fall back to its default. The default declares none.
   */
  default Map<String, String> parameters() {
    return Map.of();
  }

  /**
   * The cluster shape this protocol runs on when none is given: {@code kvlab sim} without {@code --datacenters} or
   * {@code --partitions} starts from it (each option given replaces its part). Declare it when the usual 2
   * datacenters x 3 partitions is a shape {@link #checkParameters} refuses (CaMu: 1 datacenter).
   */
  default Topology defaultTopology() {
    return new Topology(2, 3);
  }

  /**
   * How many parts a placement map of this protocol (its {@code placement=file:<map>} parameter, where it takes one)
   * names for a cluster of {@code partitions} partitions per datacenter: the partitions that hold data. The placement
   * advisor partitions a trace into this many. The default: every partition (DynaStar: all but its oracle).
   */
  default int placementParts(int partitions) {
    return partitions;
  }

  /**
   * Checks the values of the cluster file's {@code params} before anything starts: the cluster-file loader calls it
   * for every cluster file (so {@code kvlab local up}, {@code shell}, the designer... refuse a bad value with the file,
   * line and column of the value), and {@code kvlab bench} for every protocol and every swept value of
   * {@code cluster.params.<name>} before its first cluster starts. Without it a bad value is only found when the
   * servers start. Every name in {@code params} is one that {@link #parameters()} declares (the loader refuses the
   * others first); a parameter not given takes its default.
   *
   * <p>Throw a {@link ParameterException} naming the parameter, what is wrong and the fix, with the accepted values
   * when they are few ({@link ParameterException#notOneOf}); {@link Params}' typed accessors already throw one for a
   * value of the wrong form. Check only what the values and the topology decide; no I/O. The default accepts any
   * values.
   *
   * @param params the parameters as the cluster file gives them
   * @param topology the cluster's datacenters, partitions and replicas (some values name servers or partitions)
   */
  default void checkParameters(Params params, Topology topology) {
  }
}
