package org.kvlab.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Finds protocol plug-ins on the class path by name. */
public final class Protocols {
  private Protocols() {}

  public static List<Protocol> all() {
    List<Protocol> found = new ArrayList<>();
    ServiceLoader.load(Protocol.class).forEach(found::add);
    found.sort(Comparator.comparing(Protocol::name));
    return found;
  }

  /**
   * The installed protocol whose name is exactly {@code name}, or null. Names are matched exactly everywhere (cluster
   * files, the command line, handshakes): {@code Eventual} is not {@code eventual}, whose servers would refuse every
   * tool that says {@code Eventual} in its hello.
   */
  public static Protocol installed(String name) {
    return all().stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
  }

  /** The protocol named exactly {@code name}; the error lists the protocols that are installed. */
  public static Protocol byName(String name) {
    List<Protocol> all = all();
    for (Protocol p : all) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    String sameIgnoringCase = all.stream().map(Protocol::name).filter(n -> n.equalsIgnoreCase(name)).findFirst()
        .orElse(null);
    throw new IllegalArgumentException("unknown protocol '" + name + "'" + (sameIgnoringCase == null ? ""
        : " (protocol names are matched exactly: did you mean '" + sameIgnoringCase + "'?)") + "; installed protocols: "
        + (all.isEmpty() ? "(none: is a protocol jar on the class path?)"
            : all.stream().map(Protocol::name).collect(Collectors.joining(", "))));
  }

  /** "Protocol x reads: a (form, default: meaning); b (...)." or "Protocol x reads no parameters." */
  public static String describeParameters(Protocol protocol) {
    Map<String, String> declared = new TreeMap<>(protocol.parameters());
    if (declared.isEmpty()) {
      return "Protocol " + protocol.name() + " reads no parameters.";
    }
    StringBuilder sb = new StringBuilder("Protocol " + protocol.name() + " reads: ");
    String sep = "";
    for (Map.Entry<String, String> d : declared.entrySet()) {
      sb.append(sep).append(d.getKey()).append(" (").append(d.getValue()).append(')');
      sep = "; ";
    }
    return sb.append('.').toString();
  }
}
