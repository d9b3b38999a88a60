package org.kvlab.cluster;

import java.util.Optional;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.Status;

/**
 * One server as {@link ClusterBackend#status} sees it.
 *
 * @param server the server
 * @param pid its process id on its host, 0 if no process of it is known to run
 * @param status what its control endpoint answered, empty if nothing (or something else) answered
 * @param problem why it did not answer when known (e.g. another cluster's server answers there), else null
 */
public record NodeState(ServerSpec server, long pid, Optional<Status> status, String problem) {
  public boolean answers() {
    return status.isPresent();
  }

  /** Answers and is connected to every peer. */
  public boolean connected() {
    return status.isPresent() && status.get().getPeersConnected() == status.get().getPeersExpected();
  }
}
