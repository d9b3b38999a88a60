package org.kvlab.protocols.accf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.kvlab.api.NodeId;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;

/**
 * ACCF's inputs T (server to exactly one tracking group) and C (server to a non-empty set of checking groups),
 * seed 003 §7.2, read from the parameters {@code tracking} and {@code checking}. Each is a mode or an explicit
 * assignment:
 *
 * <ul>
 *   <li>{@code datacenter}: one group per datacenter (a full replica; CausalSpartan's tracking and checking, the
 *       seed's "2 x 2" view);
 *   <li>{@code server}: one group per server (every server a partial replica of its own; the seed's "4 x 1");
 *   <li>{@code system}: one group for all servers (GentleRain's scalar tracking);
 *   <li>explicit: {@code DC.P=GROUP} entries separated by spaces, commas or semicolons, one per server, e.g.
 *       {@code 0.0=a 0.1=b 1.0=a 1.1=b}; a server in several checking groups lists them joined by {@code +}.
 * </ul>
 *
 * Group names are numbered in sorted order; every index is the same on every node given the same parameters.
 */
final class Groups {
  static final String TRACKING = "tracking";
  static final String CHECKING = "checking";
  static final List<String> MODES = List.of("datacenter", "server", "system");

  private final Topology topology;
  private final List<String> trackingNames;
  private final List<String> checkingNames;
  private final int[] tracking;    // by node index
  private final int[][] checking;  // by node index, sorted

  Groups(Topology topology, Params params) {
    this.topology = topology;
    Map<NodeId, List<String>> t = assignment(topology, TRACKING, params.string(TRACKING, "datacenter"));
    Map<NodeId, List<String>> c = assignment(topology, CHECKING, params.string(CHECKING, "datacenter"));
    trackingNames = names(t);
    checkingNames = names(c);
    int n = topology.datacenters() * topology.partitions();
    tracking = new int[n];
    checking = new int[n][];
    for (NodeId node : topology.allNodes()) {
      List<String> tg = t.get(node);
      if (tg.size() != 1) {
        throw new ParameterException(TRACKING, "server " + label(node) + " is given " + tg.size()
            + " tracking groups (" + String.join("+", tg) + "); ACCF puts every server in exactly one", "give it one name");
      }
      tracking[index(node)] = trackingNames.indexOf(tg.get(0));
      checking[index(node)] = c.get(node).stream().mapToInt(checkingNames::indexOf).sorted().distinct().toArray();
    }
  }

  static String label(NodeId node) {
    return node.dc() + "." + node.partition();
  }

  private int index(NodeId node) {
    return node.dc() * topology.partitions() + node.partition();
  }

  int trackingCount() {
    return trackingNames.size();
  }

  /** The checking groups' names, sorted (a client's {@code checkingGroup} names one). */
  List<String> checkingNames() {
    return checkingNames;
  }

  int checkingCount() {
    return checkingNames.size();
  }

  int trackingOf(NodeId node) {
    return tracking[index(node)];
  }

  int[] checkingOf(NodeId node) {
    return checking[index(node)];
  }

  String trackingName(int tg) {
    return trackingNames.get(tg);
  }

  /** Index of a checking group by name, or -1. */
  int checkingIndex(String name) {
    return checkingNames.indexOf(name);
  }

  /** The servers of checking group cg. */
  List<NodeId> checkingMembers(int cg) {
    List<NodeId> out = new ArrayList<>();
    for (NodeId node : topology.allNodes()) {
      if (Arrays.stream(checkingOf(node)).anyMatch(g -> g == cg)) {
        out.add(node);
      }
    }
    return out;
  }

  private static List<String> names(Map<NodeId, List<String>> a) {
    TreeSet<String> all = new TreeSet<>();
    a.values().forEach(all::addAll);
    return List.copyOf(all);
  }

  private static Map<NodeId, List<String>> assignment(Topology topology, String param, String text) {
    Map<NodeId, List<String>> out = new LinkedHashMap<>();
    String mode = text.trim();
    switch (mode) {
      case "datacenter" -> topology.allNodes().forEach(n -> out.put(n, List.of("dc" + n.dc())));
      case "server" -> topology.allNodes().forEach(n -> out.put(n, List.of("s" + label(n))));
      case "system" -> topology.allNodes().forEach(n -> out.put(n, List.of("all")));
      default -> parseExplicit(topology, param, mode, out);
    }
    return out;
  }

  private static void parseExplicit(Topology topology, String param, String text, Map<NodeId, List<String>> out) {
    String fix = "use datacenter, server, system or explicit entries DC.P=GROUP for every server, e.g. "
        + "\"0.0=a 0.1=b 1.0=a 1.1=b\"";
    if (text.isEmpty()) {
      throw new ParameterException(param, "is empty", fix);
    }
    if (!text.contains("=")) { // a mode name, misspelt
      throw new ParameterException(param, "'" + text + "' is neither a mode nor DC.P=GROUP entries", fix, MODES);
    }
    for (String entry : text.split("[\\s,;]+")) {
      String[] kv = entry.split("=", -1);
      String[] server = kv[0].split("[._]", -1);
      if (kv.length != 2 || server.length != 2 || kv[1].isBlank()) {
        throw new ParameterException(param, "cannot read \"" + entry + "\"", fix);
      }
      NodeId node;
      try {
        node = new NodeId(Integer.parseInt(server[0]), Integer.parseInt(server[1]));
      } catch (NumberFormatException e) {
        throw new ParameterException(param, "\"" + kv[0] + "\" is not a server DC.P", fix);
      }
      if (node.dc() < 0 || node.dc() >= topology.datacenters() || node.partition() < 0
          || node.partition() >= topology.partitions()) {
        throw new ParameterException(param, "server " + kv[0] + " is not in the cluster (" + topology.datacenters()
            + " datacenters x " + topology.partitions() + " partitions)", "name servers 0.0 to "
            + (topology.datacenters() - 1) + "." + (topology.partitions() - 1));
      }
      if (out.put(node, List.of(kv[1].split("\\+"))) != null) {
        throw new ParameterException(param, "server " + kv[0] + " is assigned twice", "keep one entry");
      }
    }
    for (NodeId node : topology.allNodes()) {
      if (!out.containsKey(node)) {
        throw new ParameterException(param, "server " + label(node) + " has no group", "add " + label(node) + "=GROUP");
      }
    }
  }
}
