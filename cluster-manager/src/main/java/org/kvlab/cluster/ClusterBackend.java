package org.kvlab.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.kvlab.config.ClusterConfig;

/**
 * Where and how a kvlab cluster and its client processes run: this machine ({@code local}), hosts reached over
 * SSH ({@code ssh}) or EC2 instances made for the purpose ({@code ec2}). {@code kvlab bench} (the
 * {@link org.kvlab.experiment.ExperimentRunner}) and the CLI drive clusters through this interface only, so every
 * experiment runs on every backend; a GUI drives the same calls. See {@code docs/cluster-api.md}.
 *
 * <p>A backend prints nothing: progress and per-host events go to the {@link ClusterListener} it was made with.
 * Failures are {@link BackendException}s naming the cause and the fix. Calls are made from one thread, except
 * {@link #destroyStarted()}, which may come from any (a Ctrl-C hook) at any time.
 *
 * <p>The life of a cluster: {@link #place} (where its servers go), {@link #deploy} (what they need on their hosts),
 * {@link #start} (until every server answers and is connected to its peers), {@link #status}, {@link #startClient}
 * (client processes in a datacenter, whose files are collected back), {@link #fetchLogs}, {@link #stop},
 * {@link #deleteData}; {@link #close} releases what the backend holds (EC2: terminates its instances).
 */
public interface ClusterBackend extends AutoCloseable {
  /** {@code local}, {@code ssh} or {@code ec2}. */
  String name();

  /**
   * The cluster {@code planned} (protocol, topology, emulation...) with this backend's server addresses and ports
   * and its data directory: local keeps {@code planned} (loopback ports, {@code localDataDir}); SSH and EC2 put
   * datacenter d's servers on the hosts given for d, with a data directory on each host.
   */
  ClusterConfig place(ClusterConfig planned, Path localDataDir) throws BackendException;

  /**
   * Makes the cluster startable: creates its secret if it has none yet; SSH and EC2 check Java, upload the
   * distribution (once per build), the cluster file and the secret to every host of the cluster and of its clients.
   */
  void deploy(ClusterRef cluster) throws BackendException;

  /** Starts every server and waits until all answer and are connected to all their peers; stops them on failure. */
  void start(ClusterRef cluster, StartOptions options) throws BackendException;

  /** Every server: whether its process runs and what its control endpoint answers. */
  List<NodeState> status(ClusterRef cluster);

  /** Stops every server gracefully, kills those still running after {@code grace}; true if all answered. */
  boolean stop(ClusterRef cluster, Duration grace) throws BackendException;

  /** Copies each server's log to {@code localDir/<id>.log} (best effort: what is missing is reported). */
  void fetchLogs(ClusterRef cluster, Path localDir) throws BackendException;

  /** Deletes the servers' data directories (after a stop). */
  void deleteData(ClusterRef cluster);

  /**
   * Starts one client process (a JVM with the kvlab class path) in datacenter {@code spec.datacenter()}: on this
   * machine, or on a client host of that datacenter, with {@code spec.inputs()} in its working directory. Its
   * files come back to {@code spec.localDir()} with {@link ClientHandle#collect()}.
   */
  ClientHandle startClient(ClusterRef cluster, ClientSpec spec) throws BackendException;

  /**
   * Per host this backend runs servers or clients on, what it knows of it beyond its name, for the bench report's
   * environment section (EC2: {@code t3.small in us-east-1, i-0abc...}); empty if nothing (local, SSH).
   */
  default java.util.Map<String, String> hostDetails() {
    return java.util.Map.of();
  }

  /** Kills, at once, every server and client process this backend started and has not stopped (any thread). */
  void destroyStarted();

  /** Releases what the backend holds: connections; EC2 terminates its instances unless told to keep them. */
  @Override
  void close() throws BackendException;
}
