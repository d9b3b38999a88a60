package org.kvlab.config;

import java.nio.file.Path;

/** Reads and validates cluster files. (Being implemented.) */
final class ConfigLoader {
  private ConfigLoader() {}

  static ClusterConfig load(Path file) throws ConfigException {
    throw new UnsupportedOperationException("not yet");
  }

  static ClusterConfig parse(String yaml, String sourceName) throws ConfigException {
    throw new UnsupportedOperationException("not yet");
  }
}
