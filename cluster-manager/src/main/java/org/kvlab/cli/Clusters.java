package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.config.ProtocolNames;
import org.kvlab.config.YamlReader;

/** Loading cluster files and their protocols, with CLI-friendly errors. */
final class Clusters {
  private Clusters() {}

  static ClusterConfig load(Path file) {
    if (!Files.exists(file)) {
      String near = nearestFile(file);
      throw new Main.CliException(Main.USAGE, "cluster file " + file + " does not exist. Fix: "
          + (near != null ? "did you mean " + near + "? " : "check the path ")
          + "(examples are in examples/, e.g. examples/eventual-2dc-3p.yaml)");
    }
    try {
      return ClusterConfig.load(file);
    } catch (ConfigException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
  }

  static Protocol protocol(ClusterConfig config) {
    try {
      return Protocols.byName(config.protocol());
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, config.source() + protocolLine(config.source()) + ": protocol: "
          + notInstalled(config.protocol()));
    }
  }

  /**
   * "'gentleran' is not an installed protocol. Fix: did you mean 'gentlerain'? The installed protocols are ...", for a
   * protocol name that {@link Protocols#byName} does not know.
   */
  static String notInstalled(String name) {
    return ProtocolNames.problem(name) + ". Fix: " + ProtocolNames.fix(name);
  }

  /** ":line:column" of the value of the top-level {@code protocol:} key in {@code file}, or "" if not found. */
  private static String protocolLine(String file) {
    try {
      List<String> lines = Files.readAllLines(Path.of(file));
      for (int i = 0; i < lines.size(); i++) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^protocol:\\s*(\\S)").matcher(lines.get(i));
        if (m.find()) {
          return ":" + (i + 1) + ":" + (m.start(1) + 1);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the message goes without a line
    }
    return "";
  }

  /**
   * The YAML file beside a missing {@code file} whose name is nearest to its name (a typo: {@code smoke.yml},
   * {@code eventual-2dc3p.yaml}), as the user would write its path; null if none is near.
   */
  static String nearestFile(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent) || file.getFileName() == null) {
      return null;
    }
    List<String> names;
    try (Stream<Path> list = Files.list(parent)) {
      names = list.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml") || n.endsWith(".yml")).sorted().toList();
    } catch (IOException e) {
      return null;
    }
    String near = YamlReader.closest(file.getFileName().toString(), names);
    if (near == null) {
      return null;
    }
    return file.getParent() == null ? near : file.getParent().resolve(near).toString();
  }
}
