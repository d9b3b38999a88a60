package org.kvlab.experiment;

import java.util.List;
import java.util.Map;

/**
 * What YCSB 0.17.0's {@code CoreWorkload} and kvlab's workload ({@code org.kvlab.ycsb.KvlabWorkload}, {@code
 * KvlabDB}) accept as the values of their properties, so that {@code bench} (also with {@code --dry-run}) refuses a
 * value before a client JVM starts, instead of the client dying at run time on a stack trace. Values of properties
 * not listed here are passed to YCSB as written.
 */
final class YcsbProperties {
  private YcsbProperties() {}

  /** Why a value is refused, and the fix. */
  record Problem(String problem, String fix) {}

  /** CoreWorkload's key choosers ({@code CoreWorkload.init}: anything else is "Unknown request distribution"). */
  static final List<String> REQUEST_DISTRIBUTIONS = List.of("uniform", "zipfian", "latest", "hotspot", "sequential",
      "exponential");
  static final List<String> FIELD_LENGTH_DISTRIBUTIONS = List.of("constant", "uniform", "zipfian", "histogram");
  static final List<String> SCAN_LENGTH_DISTRIBUTIONS = List.of("uniform", "zipfian");
  static final List<String> INSERT_ORDERS = List.of("hashed", "ordered");
  static final List<String> TX_PARTNERS = List.of("uniform", "zipf");

  private static final Map<String, List<String>> CHOICES = Map.of(
      "requestdistribution", REQUEST_DISTRIBUTIONS,
      "fieldlengthdistribution", FIELD_LENGTH_DISTRIBUTIONS,
      "scanlengthdistribution", SCAN_LENGTH_DISTRIBUTIONS,
      "insertorder", INSERT_ORDERS,
      "txpartner", TX_PARTNERS);

  /** Whole numbers read with Integer.parseInt (Long.parseLong for fieldcount), and their least value. */
  private static final Map<String, Long> COUNTS = Map.ofEntries(
      Map.entry("fieldcount", 1L), Map.entry("fieldlength", 1L), Map.entry("minfieldlength", 1L),
      Map.entry("zeropadding", 1L), Map.entry("minscanlength", 1L), Map.entry("maxscanlength", 1L),
      Map.entry("core_workload_insertion_retry_limit", 0L), Map.entry("core_workload_insertion_retry_interval", 0L),
      Map.entry("target", 0L), Map.entry("ampfactor", 1L), Map.entry("rotxkeys", 1L), Map.entry("txkeys", 1L),
      Map.entry("txpartitions", 1L));

  /** Fractions from 0 to 1. */
  private static final List<String> PROPORTIONS = List.of("readproportion", "updateproportion", "insertproportion",
      "scanproportion", "readmodifywriteproportion", "hotspotdatafraction", "hotspotopnfraction",
      "ampinsertproportion", "rotxproportion", "txproportion", "kvlab.remoteproportion", "exponential.frac");

  /** Read with Boolean.parseBoolean, which takes any other word for false. */
  private static final List<String> BOOLEANS = List.of("readallfields", "readallfieldsbyname", "writeallfields",
      "dataintegrity", "reportlatencyforeacherror", "kvlab.remotedelay", "basicdb.verbose", "basicdb.randomizedelay",
      "basicdb.count");

  /** The problem with {@code value} for property {@code key}, or null if YCSB takes it. */
  static Problem check(String key, String value) {
    String v = value.strip();
    List<String> choices = CHOICES.get(key);
    if (choices != null) {
      return choices.contains(v) ? null : new Problem("'" + value + "' is not a " + key + " YCSB knows",
          "use one of " + String.join(", ", choices) + " (lower case).");
    }
    Long least = COUNTS.get(key);
    if (least != null) {
      return count(v, least);
    }
    if (PROPORTIONS.contains(key)) {
      Double d = finite(v);
      return d != null && d >= 0 && d <= 1 ? null
          : new Problem("'" + value + "' is not a proportion", "write a number from 0 to 1, e.g. 0.5.");
    }
    if (BOOLEANS.contains(key)) {
      return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false") ? null
          : new Problem("'" + value + "' is not true or false (YCSB would read it as false)", "write true or false.");
    }
    if (key.equals("exponential.percentile")) {
      Double d = finite(v);
      return d != null && d > 0 && d < 100 ? null
          : new Problem("'" + value + "' is not a percentile", "write a number above 0 and below 100, e.g. 95.");
    }
    if (key.equals("txzipfs")) {
      Double d = finite(v);
      return d != null && d >= 0 ? null : new Problem("'" + value + "' is not a Zipf exponent",
          "write a number of 0 or more, e.g. 2.");
    }
    return null;
  }

  /**
   * Checks between properties of one workload: the problem and the property to report it at, or null. Only
   * combinations CoreWorkload refuses at start-up or that silently measure something else.
   */
  static Map.Entry<String, Problem> checkTogether(Map<String, String> workload) {
    if ("true".equalsIgnoreCase(workload.getOrDefault("dataintegrity", "false").strip())
        && !"constant".equals(workload.getOrDefault("fieldlengthdistribution", "constant").strip())) {
      return Map.entry("dataintegrity", new Problem("dataintegrity needs fieldlengthdistribution constant, and it is "
          + workload.get("fieldlengthdistribution"), "remove dataintegrity, or use fieldlengthdistribution: constant."));
    }
    Map.Entry<String, Problem> fields = atMost(workload, "minfieldlength", "fieldlength", "1", "100");
    return fields != null ? fields : atMost(workload, "minscanlength", "maxscanlength", "1", "1000");
  }

  private static Map.Entry<String, Problem> atMost(Map<String, String> workload, String min, String max,
      String minDefault, String maxDefault) {
    if (!workload.containsKey(min) && !workload.containsKey(max)) {
      return null;
    }
    long lo = Long.parseLong(workload.getOrDefault(min, minDefault).strip());
    long hi = Long.parseLong(workload.getOrDefault(max, maxDefault).strip());
    if (lo <= hi) {
      return null;
    }
    return Map.entry(workload.containsKey(min) ? min : max, new Problem(min + " " + lo + " is more than " + max + " "
        + hi + (workload.containsKey(max) ? "" : " (YCSB's default)"), "make " + min + " at most " + max + "."));
  }

  private static Problem count(String v, long least) {
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      return new Problem("'" + v + "' is not a whole number", "write a whole number from " + least + " to "
          + Integer.MAX_VALUE + " in decimal digits, e.g. 100.");
    }
    if (n < least || n > Integer.MAX_VALUE) {
      return new Problem(v + " is out of range", "write a whole number from " + least + " to " + Integer.MAX_VALUE + ".");
    }
    return null;
  }

  private static Double finite(String v) {
    if (!v.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
      return null; // not NaN, Infinity, hex or a trailing 'd'/'f', which Double.parseDouble would take
    }
    double d = Double.parseDouble(v);
    return Double.isFinite(d) ? d : null;
  }
}
