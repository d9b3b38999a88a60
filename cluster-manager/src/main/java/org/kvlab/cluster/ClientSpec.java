package org.kvlab.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One client process for {@link ClusterBackend#startClient}: {@code java JVM_OPTIONS -cp <kvlab class path>
 * MAIN ARGS}, run in a working directory of its own that holds {@code inputs}. Arguments name files relative to
 * that directory; the word {@link #CLUSTER_FILE} in an argument stands for the cluster file's path where the
 * process runs. Standard output and error go to {@code stdout.txt} and {@code stderr.txt} there.
 *
 * @param name unique among the run's clients, e.g. {@code run/dc0-c1} (used in file names and events)
 * @param datacenter the datacenter whose servers it talks to (remote backends run it on that datacenter's client hosts)
 * @param jvmOptions its JVM options
 * @param mainClass its main class
 * @param args its arguments
 * @param inputs files copied into its working directory: name there to the local file
 * @param dirs directories made in its working directory before it starts (e.g. {@code hdr})
 * @param localDir where its files are (local) or are collected to (remote); created if missing
 * @param stderrLines receives each line of its standard error as it comes (from another thread), may be null
 */
public record ClientSpec(String name, int datacenter, List<String> jvmOptions, String mainClass, List<String> args,
    Map<String, Path> inputs, List<String> dirs, Path localDir, Consumer<String> stderrLines) {
  /** Stands for the cluster file in {@link #args}. */
  public static final String CLUSTER_FILE = "{cluster}";

  public ClientSpec {
    jvmOptions = List.copyOf(jvmOptions);
    args = List.copyOf(args);
    inputs = Map.copyOf(inputs);
    dirs = List.copyOf(dirs);
    stderrLines = stderrLines == null ? line -> { } : stderrLines;
  }

  /** {@link #args} with {@link #CLUSTER_FILE} replaced by {@code clusterFile}. */
  public List<String> argsWith(String clusterFile) {
    return args.stream().map(a -> a.replace(CLUSTER_FILE, clusterFile)).toList();
  }
}
