package org.kvlab.protocols.epaxos;

import java.util.Map;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.command.CommandClient;
import org.kvlab.command.CommandReply;
import org.kvlab.command.Commands;

/**
 * EPaxos client: every operation is a command sent to the session's own replica (its datacenter's server), which
 * leads it and answers once it executed it. GET and PUT are single-key commands; a transaction is one command over
 * all its keys (the framework's shared command, {@link CommandClient}).
 */
final class EPaxosClient extends CommandClient {

  /**
   * The result: reads and writes, EPaxos's seq as the timestamp and the instance as the id. No parts: EPaxos has no
   * global delivery sequence (replicas agree on the order of interfering commands only), so the ordering-metadata
   * txn checker does not apply; the black-box serializable checkers do.
   */
  @Override
  protected TxnResult result(CommandReply reply, TxnRequest request) {
    return Commands.result(reply, Map.of());
  }
}
