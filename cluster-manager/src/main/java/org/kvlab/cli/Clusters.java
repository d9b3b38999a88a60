package org.kvlab.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;

/** Loading cluster files and their protocols, with CLI-friendly errors. */
final class Clusters {
  private Clusters() {}

  static ClusterConfig load(Path file) {
    if (!Files.exists(file)) {
      throw new Main.CliException(Main.USAGE, "cluster file " + file + " does not exist. Fix: check the path "
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
      throw new Main.CliException(Main.USAGE, config.source() + ": " + e.getMessage());
    }
  }
}
