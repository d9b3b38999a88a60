package org.kvlab.config;

import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;

/**
 * The message for a protocol name that is not exactly an installed protocol's, shared by the cluster-file loader and
 * the front ends. Names are matched exactly everywhere (they travel in every handshake): {@code Eventual} gets "did
 * you mean 'eventual'?".
 */
public final class ProtocolNames {
  private ProtocolNames() {}

  /** The installed protocol nearest to {@code name} (same letters in another case, or a typo), or null. */
  public static String nearest(String name) {
    return YamlReader.closest(name, installedNames());
  }

  /** "'gentleran' is not an installed protocol", or "..., and none is" when no protocol is installed. */
  public static String problem(String name) {
    return UserText.quoted(name) + " is not an installed protocol" + (installedNames().isEmpty() ? ", and none is" : "");
  }

  /** "did you mean 'gentlerain'? The installed protocols are ...", or "use one of ...". */
  public static String fix(String name) {
    List<String> installed = installedNames();
    if (installed.isEmpty()) {
      return "run kvlab from its jar (./kvlab), whose class path has the protocol plug-ins";
    }
    String near = nearest(name);
    return (near != null ? "did you mean '" + near + "'? The installed protocols are " : "use one of ")
        + String.join(", ", installed) + " (./kvlab protocols lists them; ./kvlab new-protocol <name> makes a new one);"
        + " names are matched exactly, letter case included";
  }

  private static List<String> installedNames() {
    return Protocols.all().stream().map(Protocol::name).toList();
  }
}
