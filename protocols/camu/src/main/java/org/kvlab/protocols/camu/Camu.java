package org.kvlab.protocols.camu;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.api.VersionKey;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;

/**
 * CaMu (Vandevoorde 2018): ordering of one-shot multi-partition transactions by Calvin's periodic broadcast (PB),
 * a Skeen-style total-order multicast (TOM), or a hybrid choosing per pair of partitions, with deterministic
 * execution in (ts, tid) order behind the MEC gate. See docs/protocols.md#camu.
 */
public final class Camu extends BaseProtocol {
  /** TOM's two messages are the consensus module's (SkeenMulticast.MESSAGES), in the places CaMu's own had. */
  static final MessageTypes MESSAGES = MessageTypes.of(TxnReq.class, TxnReply.class, PartResult.class,
      SkeenData.class, SkeenVote.class, PbRound.class, SwitchReq.class, SwitchAck.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getTs(), r.getTid()));

  public Camu() {
    super("camu", "CaMu: multi-partition transactions ordered by periodic broadcast, total-order multicast or a"
        + " hybrid per pair of partitions (mode: pb, tom, camu); deterministic execution behind the MEC gate",
        MESSAGES, RECORD, CamuServer::new, CamuClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("mode", "pb | tom | camu, default camu: PB on every link, TOM on every link, or the hybrid");
    p.putAll(common());
    p.put("pbPartners", "whole number, default 2: in camu mode, partition p starts with PB links to p±1..p±k"
        + " (mod the partition count), TOM to the others");
    p.put("pbLinks", "list 'a-b;...', default empty: in camu mode, exactly these links start PB (instead of"
        + " pbPartners), e.g. 1-2 for the thesis's Fig. 3.3");
    p.put("adaptive", "true | false, default false: in camu mode, the adaptive rule switches links at run time");
    p.put("adaptiveWindow", "whole number, default 10: rounds per adaptive decision");
    p.put("adaptiveHigh", "percent, default 75: a TOM link touched in more of the window's rounds switches to PB");
    p.put("adaptiveLow", "percent, default 25: a PB link touched in fewer of the window's rounds switches to TOM");
    p.put("switches", "list 'round:a-b:pb|tom;...', default empty: scripted link switches (initiated by the lower"
        + " partition at that round)");
    return p;
  }

  /** One datacenter (CaMu's replication is not implemented), 3 partitions. */
  @Override
  public Topology defaultTopology() {
    return new Topology(1, 3);
  }

  static final List<String> MODES = List.of("pb", "tom", "camu");
  static final List<String> MUTANTS = List.of("none", "execute-before-mec-gate");

  /**
   * Every rule on CaMu's parameters and cluster shape, in one place: the cluster-file loader, {@code kvlab bench} and
   * {@code kvlab sim} call it before anything starts, and each server again when it starts ({@link CamuServer}).
   */
  @Override
  public void checkParameters(Params params, Topology topology) {
    check(params, topology);
  }

  /** {@link #checkParameters}, for the servers. */
  static void check(Params params, Topology topology) {
    if (topology.datacenters() != 1) {
      throw new TopologyException("datacenters", topology.datacenters() + " datacenters, but camu runs one replica"
          + " per partition, in 1 datacenter", "set datacenters: 1 (CaMu's replication is not implemented, see"
          + " docs/protocols.md#camu-replication)");
    }
    if (topology.replicas() != 1) {
      throw new TopologyException("replicas", topology.replicas() + " replicas per partition, but camu runs 1",
          "remove replicas (CaMu's replication is not implemented, see docs/protocols.md#camu-replication)");
    }
    String mode = params.string("mode", "camu");
    if (!MODES.contains(mode)) {
      throw ParameterException.notOneOf("mode", mode, MODES);
    }
    String mutant = params.string("mutant", "none");
    if (!MUTANTS.contains(mutant)) {
      throw ParameterException.notOneOf("mutant", mutant, MUTANTS);
    }
    ParameterException.requireDuration(params, "round", Duration.ofMillis(5), false);
    params.bool("adaptive", false);
    params.bool("durableState", true);
    int window = params.intValue("adaptiveWindow", 10);
    if (window < 1) {
      throw new ParameterException("adaptiveWindow", window + " is less than 1", "write e.g. 10 (rounds per decision)");
    }
    int high = params.intValue("adaptiveHigh", 75);
    int low = params.intValue("adaptiveLow", 25);
    if (high < 1 || high > 100) {
      throw new ParameterException("adaptiveHigh", high + " is not a percentage from 1 to 100", "write e.g. 75");
    }
    if (low < 0 || low >= high) {
      throw new ParameterException("adaptiveLow", low + " is not from 0 to below adaptiveHigh (" + high + ")",
          "write a percentage from 0 to " + (high - 1) + " (a PB link touched in fewer of the window's rounds switches"
              + " to TOM), or raise adaptiveHigh");
    }
    if (params.intValue("pbPartners", 2) < 0) {
      throw new ParameterException("pbPartners", "'" + params.string("pbPartners", "") + "' is negative",
          "write 0 or more, e.g. 2");
    }
    pbLinks(params, topology.partitions());
    switches(params, topology.partitions());
  }

  /**
   * The links of {@code pbLinks} ('a-b;...'), each as {a, b}: two different partitions below {@code n}; null if the
   * parameter is not given (then {@code pbPartners} decides).
   */
  static List<int[]> pbLinks(Params params, int n) {
    String text = params.string("pbLinks", "");
    if (text.isBlank()) {
      return null;
    }
    List<int[]> links = new ArrayList<>();
    for (String link : text.split(";")) {
      if (link.isBlank()) {
        continue;
      }
      int[] ab = partitionPair(link.trim(), n);
      if (ab == null) {
        throw new ParameterException("pbLinks", "cannot read the link '" + link.trim() + "'",
            "write 'a-b;...' with two different partitions below " + n + " (the cluster's partitions), e.g. 0-1");
      }
      links.add(ab);
    }
    return links;
  }

  /** A scripted switch: at round {@code round}, the link between partitions {@code a} and {@code b} becomes PB or TOM. */
  record Switch(long round, int a, int b, boolean toPb) {}

  /** The switches of {@code switches} ('round:a-b:pb|tom;...'), in the order given. */
  static List<Switch> switches(Params params, int n) {
    List<Switch> out = new ArrayList<>();
    for (String s : params.string("switches", "").split(";")) {
      if (s.isBlank()) {
        continue;
      }
      String[] p = s.trim().split(":");
      int[] ab = p.length == 3 && (p[2].equals("pb") || p[2].equals("tom")) && p[1].matches("\\d+-\\d+")
          ? partitionPair(p[1], n) : null;
      long round = -1;
      if (ab != null) {
        try {
          round = Long.parseLong(p[0]);
        } catch (NumberFormatException e) {
          // refused below
        }
      }
      if (round < 0) {
        throw new ParameterException("switches", "cannot read the switch '" + s.trim() + "'",
            "write 'round:a-b:pb|tom;...' with a round number and two different partitions below " + n
                + ", e.g. 20:0-1:pb;60:0-1:tom");
      }
      out.add(new Switch(round, ab[0], ab[1], p[2].equals("pb")));
    }
    return out;
  }

  /** "a-b" with two different partitions below n, or null. */
  private static int[] partitionPair(String text, int n) {
    String[] ab = text.split("-");
    if (ab.length != 2) {
      return null;
    }
    try {
      int a = Integer.parseInt(ab[0].trim());
      int b = Integer.parseInt(ab[1].trim());
      return a == b || a < 0 || b < 0 || a >= n || b >= n ? null : new int[] {a, b};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Parameters of every mode. */
  private static Map<String, String> common() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("round", "duration, default 5ms: the round (batch) duration");
    p.put("durableState", "true | false, default true: save the ordering state in the store after every handler, so a"
        + " crashed partition restarts where it stopped (needs durability sync); false only for runs without crashes"
        + " or to show what the saved state is for");
    p.put("mutant", "none | execute-before-mec-gate, default none: a deliberately broken variant for tests");
    return p;
  }
}
