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

  /** The protocol named {@code name}; the error lists the protocols that are installed. */
  public static Protocol byName(String name) {
    List<Protocol> all = all();
    for (Protocol p : all) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown protocol '" + name + "'; installed protocols: "
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
