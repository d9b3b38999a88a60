package org.kvlab.sim.explore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.sim.Script;

/**
 * A replayable schedule ({@code kvlab explore} writes one, {@code kvlab sim --schedule FILE} replays it): what the run
 * was (protocol, topology, parameters, sessions, crash bound, checks, seed) and the events chosen, one per line. The
 * text format, one {@code name: value} per line, then the choices:
 *
 * <pre>
 * # kvlab schedule: replay with ./kvlab sim --schedule FILE
 * protocol: eventual
 * topology: 2x1
 * param: name=value            (repeatable)
 * crashes: 0
 * horizon-micros: 20000
 * check: session
 * seed: 1
 * session: dc0 put k0=a; get k0    (one per session)
 * violation: session: ...          (what failed; informative)
 * choices:
 * invoke s0@dc0
 * deliver s0@dc0-&gt;0_0
 * </pre>
 */
public record Schedule(String protocol, int datacenters, int partitions, Map<String, String> params,
    List<Script> sessions, int crashes, long horizonMicros, List<String> checks, long seed, List<String> choices, String violation) {

  public Schedule {
    params = Map.copyOf(params);
    sessions = List.copyOf(sessions);
    checks = List.copyOf(checks);
    choices = List.copyOf(choices);
  }

  public Schedule withChoices(List<String> choices, String violation) {
    return new Schedule(protocol, datacenters, partitions, params, sessions, crashes, horizonMicros, checks, seed, choices, violation);
  }

  public String format() {
    StringBuilder out = new StringBuilder("# kvlab schedule: replay with ./kvlab sim --schedule FILE\n");
    out.append("protocol: ").append(protocol).append('\n');
    out.append("topology: ").append(datacenters).append('x').append(partitions).append('\n');
    new java.util.TreeMap<>(params).forEach((k, v) -> out.append("param: ").append(k).append('=').append(v).append('\n'));
    out.append("crashes: ").append(crashes).append('\n');
    out.append("horizon-micros: ").append(horizonMicros).append('\n');
    out.append("check: ").append(String.join(",", checks)).append('\n');
    out.append("seed: ").append(seed).append('\n');
    for (Script s : sessions) {
      out.append("session: ").append(describe(s)).append('\n');
    }
    if (violation != null) {
      out.append("violation: ").append(violation.replace('\n', ' ')).append('\n');
    }
    out.append("choices:\n");
    choices.forEach(c -> out.append(c).append('\n'));
    return out.toString();
  }

  /** A session as {@code dc0 put k0=a; get k0}. */
  public static String describe(Script s) {
    List<String> steps = new ArrayList<>();
    for (Script.Step step : s.steps()) {
      if (step instanceof Script.Step.Put p) {
        steps.add("put " + p.key() + "=" + p.value());
      } else if (step instanceof Script.Step.Get g) {
        steps.add("get " + g.key());
      } else if (step instanceof Script.Step.Rotx r) {
        steps.add("rotx " + String.join(" ", r.keys()));
      } else if (step instanceof Script.Step.Txn t && t.request().procedure() == null) {
        StringBuilder txn = new StringBuilder("txn r");
        t.request().reads().forEach(k -> txn.append(' ').append(k));
        txn.append(" w");
        t.request().writes().forEach((k, v) -> txn.append(' ').append(k).append('=').append(v.toStringUtf8()));
        steps.add(txn.toString());
      } else {
        throw new IllegalArgumentException("a schedule's sessions hold puts, gets, read-only and read/write"
            + " transactions only, not " + step);
      }
    }
    return "dc" + s.dc() + " " + String.join("; ", steps);
  }

  /** Parses {@code dc0 put k0=a; get k0}. */
  public static Script session(String text) {
    String t = text.trim();
    int space = t.indexOf(' ');
    if (!t.startsWith("dc") || space < 0) {
      throw new IllegalArgumentException("session '" + text + "' does not start with its datacenter. Fix: write e.g."
          + " 'session: dc0 put k0=a; get k0'");
    }
    Script s = Script.at(Integer.parseInt(t.substring(2, space)));
    for (String step : t.substring(space + 1).split(";")) {
      String st = step.trim();
      if (st.startsWith("put ") && st.contains("=")) {
        String kv = st.substring(4).trim();
        s = s.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      } else if (st.startsWith("get ")) {
        s = s.get(st.substring(4).trim());
      } else if (st.startsWith("rotx ")) {
        s = s.rotx(st.substring(5).trim().split("\\s+"));
      } else if (st.startsWith("txn ")) {
        s = s.txn(txn(st));
      } else {
        throw new IllegalArgumentException("session step '" + st + "' is none of 'put KEY=VALUE', 'get KEY', 'rotx"
            + " KEY...', 'txn r KEY... w KEY=VALUE...'. Fix: write e.g. 'session: dc0 put k0=a; get k0'");
      }
    }
    return s;
  }

  /** Parses {@code txn r k0 k1 w k2=v}: the keys read, then the writes (either list may be empty). */
  private static org.kvlab.api.TxnRequest txn(String step) {
    List<String> reads = new ArrayList<>();
    Map<String, com.google.protobuf.ByteString> writes = new LinkedHashMap<>();
    boolean reading = false;
    for (String w : step.substring(4).trim().split("\\s+")) {
      if (w.equals("r") || w.equals("w")) {
        reading = w.equals("r");
      } else if (reading) {
        reads.add(w);
      } else if (w.contains("=")) {
        writes.put(w.substring(0, w.indexOf('=')),
            com.google.protobuf.ByteString.copyFromUtf8(w.substring(w.indexOf('=') + 1)));
      } else {
        throw new IllegalArgumentException("transaction step '" + step + "': '" + w + "' is not KEY=VALUE after 'w'."
            + " Fix: write e.g. 'txn r k0 k1 w k2=v'");
      }
    }
    return org.kvlab.api.TxnRequest.of(reads, writes);
  }

  public void write(Path file) throws IOException {
    Files.writeString(file, format());
  }

  public static Schedule read(Path file) throws IOException {
    return parse(Files.readString(file), file.toString());
  }

  /** Parses {@link #format()}'s text; {@code source} names it in errors. */
  public static Schedule parse(String text, String source) {
    Map<String, String> fields = new LinkedHashMap<>();
    Map<String, String> params = new LinkedHashMap<>();
    List<Script> sessions = new ArrayList<>();
    List<String> choices = new ArrayList<>();
    boolean inChoices = false;
    int n = 0;
    for (String raw : text.split("\n")) {
      n++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (inChoices) {
        choices.add(line);
        continue;
      }
      if (line.equals("choices:")) {
        inChoices = true;
        continue;
      }
      int colon = line.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(source + " line " + n + ": '" + line + "' is not 'name: value'. Fix: write"
            + " a schedule as kvlab explore does (protocol:, topology:, session:, ..., then choices:)");
      }
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      switch (name) {
        case "session" -> sessions.add(session(value));
        case "param" -> {
          int eq = value.indexOf('=');
          if (eq < 0) {
            throw new IllegalArgumentException(source + " line " + n + ": param '" + value + "' is not name=value."
                + " Fix: write e.g. 'param: quorum=2'");
          }
          params.put(value.substring(0, eq).trim(), value.substring(eq + 1).trim());
        }
        case "protocol", "topology", "crashes", "horizon-micros", "check", "seed", "violation" -> fields.put(name, value);
        default -> throw new IllegalArgumentException(source + " line " + n + ": unknown field '" + name + "'. Fix:"
            + " use protocol, topology, param, crashes, horizon-micros, check, seed, session, violation, choices");
      }
    }
    for (String required : List.of("protocol", "topology")) {
      if (!fields.containsKey(required)) {
        throw new IllegalArgumentException(source + " has no '" + required + ":' line. Fix: write the schedule as"
            + " kvlab explore does");
      }
    }
    if (!inChoices) {
      throw new IllegalArgumentException(source + " has no 'choices:' section. Fix: end the schedule with 'choices:'"
          + " and one event per line");
    }
    if (sessions.isEmpty()) {
      throw new IllegalArgumentException(source + " has no 'session:' line. Fix: give each session, e.g."
          + " 'session: dc0 put k0=a; get k0'");
    }
    String[] topo = fields.get("topology").split("x");
    try {
      String check = fields.getOrDefault("check", "");
      return new Schedule(fields.get("protocol"), Integer.parseInt(topo[0].trim()), Integer.parseInt(topo[1].trim()),
          params, sessions, Integer.parseInt(fields.getOrDefault("crashes", "0")),
          Long.parseLong(fields.getOrDefault("horizon-micros", "0")),
          check.isEmpty() ? List.of() : List.of(check.split(",")), Long.parseLong(fields.getOrDefault("seed", "1")),
          choices, fields.get("violation"));
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(source + ": topology, crashes, horizon-micros and seed must be numbers (topology DxP, e.g."
          + " 2x1): " + e.getMessage() + ". Fix: write them as kvlab explore does");
    }
  }
}
