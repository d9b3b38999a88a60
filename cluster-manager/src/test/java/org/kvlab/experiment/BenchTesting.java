package org.kvlab.experiment;

/** The YCSB DB the bench tests use: kvlab's binding when it is on the class path, YCSB's BasicDB otherwise. */
final class BenchTesting {
  private BenchTesting() {}

  static String db() {
    try {
      Class.forName(Experiment.KVLAB_DB);
      return Experiment.KVLAB_DB;
    } catch (ClassNotFoundException e) {
      return "site.ycsb.BasicDB";
    }
  }

  /** Experiment-file lines selecting that DB. */
  static String dbLines() {
    return db().equals(Experiment.KVLAB_DB) ? ""
        : "db: site.ycsb.BasicDB\nworkloadclass: site.ycsb.workloads.CoreWorkload\n";
  }
}
