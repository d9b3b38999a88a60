package org.kvlab.testing;

import java.util.Map;
import java.util.function.Supplier;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.testing.kit.KitRecord;

/**
 * {@link Testkit} with its server or client replaced (a test's protocol broken on purpose): its messages and records,
 * the given servers and clients (null: Testkit's own), the given declared parameters. Subclass it with a public
 * no-argument constructor to register it for ServiceLoader in a module's test resources.
 */
public class KitVariant implements Protocol {
  private final Testkit kit = new Testkit();
  private final String name;
  private final Supplier<Server<KitRecord>> servers;
  private final Supplier<Client> clients;
  private final Map<String, String> parameters;

  public KitVariant(String name, Supplier<Server<KitRecord>> servers, Supplier<Client> clients,
      Map<String, String> parameters) {
    this.name = name;
    this.servers = servers;
    this.clients = clients;
    this.parameters = Map.copyOf(parameters);
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String summary() {
    return "test protocol: the test kit, broken on purpose";
  }

  @Override
  public final MessageTypes messages() {
    return kit.messages();
  }

  @Override
  public final RecordType<KitRecord> record() {
    return kit.record();
  }

  @Override
  public final Map<String, String> parameters() {
    return parameters;
  }

  @Override
  public final Server<KitRecord> newServer() {
    return servers != null ? servers.get() : kit.newServer();
  }

  @Override
  public final Client newClient() {
    return clients != null ? clients.get() : kit.newClient();
  }
}
