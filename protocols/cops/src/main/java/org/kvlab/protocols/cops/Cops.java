package org.kvlab.protocols.cops;

import java.time.Duration;
import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.VersionKey;

/** The COPS plug-in: causal+ consistency with explicit dependency tracking and checking, dependencies garbage-collected. */
public final class Cops extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      Replicate.class, DepCheck.class, DepOk.class, Visible.class);
  /** (ver, sr, state, key hash): the visible copy of a version sorts above its pending copy, the stable copy above both. */
  static final RecordType<Record> RECORD = RecordType.of(Record.class,
      r -> VersionKey.of(r.getVer(), r.getSr(), r.getState(), r.getKey().hashCode() & 0xffffffffL));

  public Cops() {
    super("cops",
        "causal+ consistency with explicit dependencies: a replicated version becomes visible once its dependencies are"
            + " (dependency checks); dependencies garbage-collected",
        MESSAGES, RECORD, CopsServer::new, CopsClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Map.of("depRetry", "duration, default 500ms: a dependency check not answered in this time is sent again"
        + " (the checked server may have restarted and forgotten it)");
  }

  /** Periods and timeouts must be more than 0 (the server's timers), lags and margins 0 or more. */
  @Override
  public void checkParameters(Params params, Topology topology) {
    ParameterException.requireDuration(params, "depRetry", Duration.ofMillis(500), false);
  }
}
