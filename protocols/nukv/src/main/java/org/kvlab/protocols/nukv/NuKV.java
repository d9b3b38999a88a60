package org.kvlab.protocols.nukv;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.VersionKey;
import org.kvlab.consensus.raft.Raft;
import org.kvlab.consensus.raft.RaftJournal;

/**
 * NuKV's per-key session guarantees (seed 003 chapter 4): each partition of each datacenter is a Raft
 * group (MicroRaft; the cluster file's {@code replicas}), clients choose MR/RYW for reads and MW/WFR for
 * writes per operation, and leaders stamp writes with a hybrid logical clock so they never wait.
 */
public final class NuKV extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      Raft.class, Replicate.class, ReplicateAck.class);
  /** User versions by (t, dc); the Raft journal (one reserved key) by its sequence number. */
  static final RecordType<Stored> RECORD = RecordType.of(Stored.class, s -> s.hasJournal()
      ? RaftJournal.versionKey(s.getSeq()) : VersionKey.of(s.getVersion().getT(), s.getVersion().getDc()));

  public NuKV() {
    super("nukv",
        "NuKV per-key session guarantees (MR, RYW, MW, WFR per operation) over a Raft group per partition per"
            + " datacenter, HLC wait-free writes",
        MESSAGES, RECORD, NuKVServer::new, NuKVClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return NuKVParams.DECLARED;
  }

  /**
   * Each parameter given is read on its own, as the servers read it ({@link NuKVParams#read}), so a refusal names
   * it; then the durations the servers' timers need positive.
   */
  @Override
  public void checkParameters(Params params, Topology topology) {
    for (Map.Entry<String, String> e : params.asMap().entrySet()) {
      try {
        new NuKVParams().read(new Params(Map.of(e.getKey(), e.getValue())));
      } catch (ParameterException x) {
        throw x;
      } catch (IllegalArgumentException x) {
        List<String> choices = switch (e.getKey()) {
          case "readLevel" -> List.of("eventual", "mr", "ryw", "mr+ryw");
          case "writeLevel" -> List.of("eventual", "mw", "wfr", "mw+wfr");
          default -> List.of();
        };
        String problem = x.getMessage().replaceFirst("^params\\." + e.getKey() + " ", "");
        int use = problem.indexOf(": use ");
        String fix = use >= 0 ? problem.substring(use + 2)
            : "write a value as its description says: " + NuKVParams.DECLARED.get(e.getKey());
        throw new ParameterException(e.getKey(), use >= 0 ? problem.substring(0, use) : problem, fix, choices);
      }
    }
    ParameterException.requireDuration(params, "electionTimeout", Duration.ofMillis(500), false);
    ParameterException.requireDuration(params, "heartbeatTimeout", Duration.ofSeconds(2), false);
    ParameterException.requireDuration(params, "forwardPeriod", Duration.ofMillis(1), false);
    ParameterException.requireDuration(params, "resendAfter", Duration.ofMillis(200), true);
    ParameterException.requireDuration(params, "waitMax", Duration.ofMillis(1500), true);
    ParameterException.requireDuration(params, "retryAfter", Duration.ofMillis(20), true);
  }
}
