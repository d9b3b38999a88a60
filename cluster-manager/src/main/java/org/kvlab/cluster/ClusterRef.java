package org.kvlab.cluster;

import java.nio.file.Path;
import org.kvlab.config.ClusterConfig;

/** A cluster as backends take it: its cluster file (uploaded as is to remote hosts) and its loaded form. */
public record ClusterRef(Path file, ClusterConfig config) {}
