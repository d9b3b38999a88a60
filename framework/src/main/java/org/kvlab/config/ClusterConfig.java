package org.kvlab.config;

import java.nio.file.Path;
import java.util.List;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;

/**
 * A cluster file, loaded and validated. Immutable. See {@code docs/cluster-file.md} for the format.
 *
 * @param source the file it was read from (for messages), or a pseudo-name for in-memory YAML
 * @param name cluster name (used in handshakes, local state directories, EC2 tags)
 * @param protocol protocol name as found by {@link org.kvlab.api.Protocols#byName}
 * @param params protocol parameters (top-level {@code params})
 * @param topology datacenters x partitions
 * @param servers one entry per (dc, partition), sorted by id
 * @param storage storage engine, durability and data directory
 * @param emulation optional WAN delay and clock skew
 * @param limits frame size, queue limits and connection timeouts
 * @param security where the cluster's secret lives and the optional client token
 */
public record ClusterConfig(
    String source,
    String name,
    String protocol,
    Params params,
    Topology topology,
    List<ServerSpec> servers,
    StorageSpec storage,
    EmulationSpec emulation,
    Limits limits,
    SecuritySpec security) {

  /** A cluster with the default security section (secret in {@link SecuritySpec#defaultSecretFile}). */
  public ClusterConfig(String source, String name, String protocol, Params params, Topology topology,
      List<ServerSpec> servers, StorageSpec storage, EmulationSpec emulation, Limits limits) {
    this(source, name, protocol, params, topology, servers, storage, emulation, limits, SecuritySpec.defaults(name));
  }

  /** Loads and validates {@code file}; every problem is reported as a {@link ConfigException}. */
  public static ClusterConfig load(Path file) throws ConfigException {
    return ConfigLoader.load(file);
  }

  /** Parses YAML text; {@code sourceName} stands for the file name in messages. */
  public static ClusterConfig parse(String yaml, String sourceName) throws ConfigException {
    return ConfigLoader.parse(yaml, sourceName);
  }

  /** The server entry of {@code id}; IllegalArgumentException naming the known ids if absent. */
  public ServerSpec server(NodeId id) {
    for (ServerSpec s : servers) {
      if (s.id().equals(id)) {
        return s;
      }
    }
    throw new IllegalArgumentException("cluster '" + name + "' has no server " + id + "; servers are "
        + servers.stream().map(s -> s.id().toString()).toList());
  }

  /** A copy with another storage section (tests and benchmarks switch engine or directory). */
  public ClusterConfig withStorage(StorageSpec storage) {
    return new ClusterConfig(source, name, protocol, params, topology, servers, storage, emulation, limits, security);
  }

  /** A copy with every server's port moved by {@code offset} (tests run clusters side by side). */
  public ClusterConfig withPortOffset(int offset) {
    return new ClusterConfig(source, name, protocol, params, topology,
        servers.stream().map(s -> new ServerSpec(s.id(), s.host(), s.port() + offset)).toList(),
        storage, emulation, limits, security);
  }

  /** A copy with another security section (tests keep their secret apart). */
  public ClusterConfig withSecurity(SecuritySpec security) {
    return new ClusterConfig(source, name, protocol, params, topology, servers, storage, emulation, limits, security);
  }

  /** A copy with another emulation section. */
  public ClusterConfig withEmulation(EmulationSpec emulation) {
    return new ClusterConfig(source, name, protocol, params, topology, servers, storage, emulation, limits, security);
  }

  /** One server: where it listens for peers, clients and control connections (one port for all). */
  public record ServerSpec(NodeId id, String host, int port) {}

  /**
   * @param engine {@code je} (Berkeley DB JE, persistent) or {@code memory}
   * @param durability {@code none} or {@code sync}
   * @param dir data directory; each server uses {@code dir/<cluster>/<server id>}
   */
  public record StorageSpec(Engine engine, org.kvlab.store.Durability durability, Path dir) {
    public enum Engine { JE, MEMORY }

    /** The directory of one server's data. */
    public Path dirOf(String cluster, NodeId id) {
      return dir.resolve(cluster).resolve(id.toString());
    }
  }

  /**
   * Emulation of a WAN and of clock anomalies on one machine.
   *
   * @param rttMillis round-trip time between datacenters, {@code rttMillis[a][b]}; null means none.
   *     Each message between datacenters a and b is delayed by rtt/2 on the sending side.
   * @param skewMillis per-server clock offset in milliseconds (absent = 0)
   */
  public record EmulationSpec(long[][] rttMillis, java.util.Map<NodeId, Long> skewMillis) {
    public static EmulationSpec none() {
      return new EmulationSpec(null, java.util.Map.of());
    }

    public long oneWayDelayMillis(int fromDc, int toDc) {
      return rttMillis == null ? 0 : rttMillis[fromDc][toDc] / 2;
    }

    public long skewMillisOf(NodeId id) {
      return skewMillis.getOrDefault(id, 0L);
    }
  }

  /**
   * @param frameBytesMax largest frame body (bytes after the 4-byte length) accepted on any connection
   *     once its handshake is done; a bigger one closes that connection
   * @param peerQueueMessagesMax unacknowledged messages kept per peer channel before send() pushes back
   * @param clientRequestsInFlightMax outstanding requests per client connection before the client waits
   * @param handshakeMillis time an accepted connection has to complete its handshake before it is closed
   * @param clientIdleSeconds a client connection with no traffic either way for this long is closed
   *     (0: never); the client reopens it on its next request
   * @param peerFlushMicros a peer channel writes to the network at most once per this many microseconds: a message
   *     sent sooner after the channel's last write waits (at most this long) and goes out with the others sent in
   *     the meantime, in one write system call; a message sent later goes out at the end of its event-loop turn,
   *     as with 0 (no pacing). Client replies are never held.
   * @param partialFrameBytesMax the bytes a server's authenticated connections may hold in partly received frames, all
   *     together (at least one maximal frame: frameBytesMax + 4); above it the largest client connections are closed
   *     (never peers); connections not yet authenticated have a reserve of their own
   */
  public record Limits(int frameBytesMax, int peerQueueMessagesMax, int clientRequestsInFlightMax,
      int handshakeMillis, int clientIdleSeconds, int peerFlushMicros, int partialFrameBytesMax) {
    public static final int FRAME_BYTES_MAX_DEFAULT = 16 * 1024 * 1024;
    public static final int PEER_QUEUE_MESSAGES_MAX_DEFAULT = 1_000_000;
    public static final int CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT = 10_000;
    public static final int HANDSHAKE_MILLIS_DEFAULT = 5_000;
    public static final int CLIENT_IDLE_SECONDS_DEFAULT = 600;
    /** See docs/runtime.md, "Peer write pacing", for how this default was measured. */
    public static final int PEER_FLUSH_MICROS_DEFAULT = 1000;
    public static final int PEER_FLUSH_MICROS_MAX = 100_000;
    /** Largest frame body accepted before a connection's handshake is done (a Hello is about 100 bytes). */
    public static final int HANDSHAKE_FRAME_BYTES_MAX = 4096;
    /** Four maximal frames at the default frameBytesMax; see docs/runtime.md, "Memory of partly received frames". */
    public static final int PARTIAL_FRAME_BYTES_MAX_DEFAULT = 64 * 1024 * 1024;

    /** Limits with the default budget of partly received frames. */
    public Limits(int frameBytesMax, int peerQueueMessagesMax, int clientRequestsInFlightMax, int handshakeMillis,
        int clientIdleSeconds, int peerFlushMicros) {
      this(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, handshakeMillis, clientIdleSeconds,
          peerFlushMicros, PARTIAL_FRAME_BYTES_MAX_DEFAULT);
    }

    /** Limits with the default handshake deadline and client idle timeout. */
    public Limits(int frameBytesMax, int peerQueueMessagesMax, int clientRequestsInFlightMax) {
      this(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, HANDSHAKE_MILLIS_DEFAULT,
          CLIENT_IDLE_SECONDS_DEFAULT);
    }

    /** Limits with the default peer write pacing. */
    public Limits(int frameBytesMax, int peerQueueMessagesMax, int clientRequestsInFlightMax, int handshakeMillis,
        int clientIdleSeconds) {
      this(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, handshakeMillis, clientIdleSeconds,
          PEER_FLUSH_MICROS_DEFAULT);
    }

    public static Limits defaults() {
      return new Limits(FRAME_BYTES_MAX_DEFAULT, PEER_QUEUE_MESSAGES_MAX_DEFAULT, CLIENT_REQUESTS_IN_FLIGHT_MAX_DEFAULT);
    }

    /** A copy with another handshake deadline and client idle timeout. */
    public Limits withTimeouts(int handshakeMillis, int clientIdleSeconds) {
      return new Limits(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, handshakeMillis, clientIdleSeconds,
          peerFlushMicros, partialFrameBytesMax);
    }

    /** A copy with another peer write pacing (0: none). */
    public Limits withPeerFlushMicros(int micros) {
      return new Limits(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, handshakeMillis, clientIdleSeconds,
          micros, partialFrameBytesMax);
    }

    /** A copy with another budget of partly received frames. */
    public Limits withPartialFrameBytesMax(int bytes) {
      return new Limits(frameBytesMax, peerQueueMessagesMax, clientRequestsInFlightMax, handshakeMillis, clientIdleSeconds,
          peerFlushMicros, bytes);
    }
  }

  /**
   * Who may talk to the cluster (docs/runtime.md, "Security").
   *
   * @param secretFile the file holding the cluster secret that servers and the cluster's tools prove
   *     to each other (see {@link ClusterSecret}); created by {@code kvlab local up}
   * @param secret the secret itself when it is held in memory only (single-JVM tests), else null
   * @param clientToken if non-null, clients must prove knowledge of this token to connect; null: any
   *     client that reaches the port may connect
   */
  public record SecuritySpec(Path secretFile, ClusterSecret secret, String clientToken) {
    /** The default place of a cluster's secret: {@code .kvlab/local/<cluster>/secret} under the working directory. */
    public static Path defaultSecretFile(String cluster) {
      return Path.of(".kvlab", "local", cluster, "secret").toAbsolutePath().normalize();
    }

    public static SecuritySpec defaults(String cluster) {
      return new SecuritySpec(defaultSecretFile(cluster), null, null);
    }

    /** The cluster's secret: the in-memory one, or the file's, which must exist. */
    public ClusterSecret load() throws ClusterSecret.SecretException {
      return secret != null ? secret : ClusterSecret.load(secretFile);
    }

    /** The cluster's secret, creating the file if it does not exist yet. */
    public ClusterSecret loadOrCreate() throws ClusterSecret.SecretException {
      return secret != null ? secret : ClusterSecret.loadOrCreate(secretFile);
    }

    /** The key of client handshakes, or null if clients need none. */
    public ClusterSecret clientKey() {
      return clientToken == null ? null : ClusterSecret.ofClientToken(clientToken);
    }

    @Override
    public String toString() {
      return "SecuritySpec[secretFile=" + secretFile + (secret != null ? ", in-memory secret" : "")
          + (clientToken != null ? ", clientToken set" : "") + "]";
    }
  }
}
