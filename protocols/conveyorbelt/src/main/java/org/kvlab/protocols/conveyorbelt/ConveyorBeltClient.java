package org.kvlab.protocols.conveyorbelt;

import org.kvlab.api.NodeId;
import org.kvlab.command.CommandClient;
import org.kvlab.command.CommandRequest;

/**
 * Conveyor Belt client: an operation goes to the server its type's partitioning parameter routes to (the same
 * function the servers use, {@link Classification#route}), else to the session's datacenter's server; with
 * {@code routing=server} always to the latter, which redirects. GET is an operation reading its key, PUT one writing
 * it (both undeclared, so global at that server); a transaction is one operation over its keys (the framework's
 * shared command, {@link CommandClient}).
 */
final class ConveyorBeltClient extends CommandClient {
  private Classification classes;
  private boolean route;

  @Override
  protected void onStart() {
    classes = Classification.load(params().string("operations", "store"));
    route = params().string("routing", "client").equals("client");
  }

  /** The session's datacenter: the prefix {@code <d>@} of the server-specific ids it mints (evaluation programs). */
  int site() {
    return dc();
  }

  /** The session's clock, in microseconds (evaluation programs time operations with it). */
  long micros() {
    return clock().micros();
  }

  @Override
  protected NodeId serverOf(CommandRequest req) {
    NodeId to = topology().node(dc(), 0);
    if (route) {
      int s = classes.of(req.getProcedure(), req.getArgsList(), topology().datacenters()).server();
      to = s >= 0 ? topology().node(s, 0) : to;
    }
    return to;
  }
}
