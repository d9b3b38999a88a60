package org.kvlab.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
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
}
