package org.kvlab.protocols.m2paxos;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;

/**
 * M²Paxos with its servers watched from outside (the simulator runs every node on one thread): every decision any
 * replica learns is compared with what the others learned at that (object, instance), and every replica's delivery
 * sequence is recorded. One instance per simulated run.
 */
final class Observed implements Protocol {
  private final Protocol inner;
  private final Supplier<? extends M2PaxosServer> servers;
  /** (object, instance) -> the first decision any replica learned, as "dc: signature". */
  final Map<String, String> decisions = new TreeMap<>();
  final List<String> conflicts = new ArrayList<>();
  /** object -> datacenter -> the ids of the commands delivered on it there, in delivery order (across restarts). */
  final Map<String, Map<Integer, List<Long>>> deliveries = new TreeMap<>();
  /** datacenter -> its server (the last incarnation). */
  final Map<Integer, M2PaxosServer> live = new TreeMap<>();

  Observed(Protocol inner, Supplier<? extends M2PaxosServer> servers) {
    this.inner = inner;
    this.servers = servers;
  }

  static Observed of(Protocol inner) {
    Observed[] self = new Observed[1];
    self[0] = new Observed(inner, () -> new Watched(self[0]));
    return self[0];
  }

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
    return servers.get();
  }

  @Override
  public Client newClient() {
    return inner.newClient();
  }

  @Override
  public Map<String, String> parameters() {
    return inner.parameters();
  }

  static class Watched extends M2PaxosServer {
    private final Observed o;

    Watched(Observed o) {
      this.o = o;
    }

    @Override
    protected void onStart() {
      super.onStart();
      o.live.put(dc(), this);
    }

    @Override
    void onDecided(String key, long in, Command c) {
      String sig = Forcing.signature(c);
      String first = o.decisions.putIfAbsent(key + "@" + in, dc() + ": " + sig);
      if (first != null && !first.substring(first.indexOf(": ") + 2).equals(sig)) {
        o.conflicts.add(key + "@" + in + ": " + first + " vs " + dc() + ": " + sig);
      }
    }

    @Override
    void onDelivered(Command c, long ts) {
      c.getPositionsMap().keySet().forEach(k -> o.deliveries.computeIfAbsent(k, x -> new TreeMap<>())
          .computeIfAbsent(dc(), x -> new ArrayList<>()).add(c.getId()));
    }
  }
}
