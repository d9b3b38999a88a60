package org.kvlab.protocols.camu;

import java.util.LinkedHashMap;
import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/**
 * CaMu (Vandevoorde 2018): ordering of one-shot multi-partition transactions by Calvin's periodic broadcast (PB),
 * a Skeen-style total-order multicast (TOM), or a hybrid choosing per pair of partitions, with deterministic
 * execution in (ts, tid) order behind the MEC gate. See docs/protocols.md#camu.
 */
public final class Camu extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(TxnReq.class, TxnReply.class, PartResult.class, TomTxn.class,
      TomVote.class, PbRound.class, SwitchReq.class, SwitchAck.class);
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
