package org.kvlab.protocols.causalspartanx;

import java.time.Duration;
import java.util.Map;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.VersionKey;

/**
 * The CausalSpartanX plug-in (seed 003 ch. 5): causal++ consistency with HLC timestamps (wait-free PUTs),
 * datacenter stable vectors and one-round non-blocking read-only transactions.
 * Parameters: {@code heartbeat} (Δ, default 10ms), {@code dsvInterval} (θ, default 5ms), {@code pruneLag} (1s),
 * {@code idleAfter} (1s) and {@code idleInterval} (1s) for the idle back-off.
 */
public final class CausalSpartanX extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      RotxReq.class, RotxReply.class, Replicate.class, Heartbeat.class, VvReport.class, SliceReq.class,
      SliceReply.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public CausalSpartanX() {
    super("causalspartanx",
        "causal++ consistency: HLC (wait-free PUT), datacenter stable vectors, one-round read-only transactions",
        MESSAGES, RECORD, () -> new CausalSpartanXServer(CausalSpartanXServer.Variant.CORRECT), CausalSpartanXClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Map.of(
        "heartbeat", "duration, default 10ms: a server with nothing to replicate sends its clock to its peers this often (Δ)",
        "dsvInterval", "duration, default 5ms: how often the partitions of a datacenter compute its stable vector (θ)",
        "pruneLag", "duration, default 1s: versions older than the stable vector minus this are pruned",
        "idleAfter", "duration, default 1s: with no client operation for this long (anywhere in the"
            + " cluster), heartbeats and the DSV computation slow down to idleInterval",
        "idleInterval", "duration, default 1s: the heartbeat and DSV period of an idle cluster (the first client"
            + " request restores heartbeat and dsvInterval at once); set it to the heartbeat to turn the back-off off");
  }

  /** Periods and timeouts must be more than 0 (the server's timers), lags and margins 0 or more. */
  @Override
  public void checkParameters(Params params, Topology topology) {
    ParameterException.requireDuration(params, "heartbeat", Duration.ofMillis(10), false);
    ParameterException.requireDuration(params, "dsvInterval", Duration.ofMillis(5), false);
    ParameterException.requireDuration(params, "pruneLag", Duration.ofSeconds(1), true);
    ParameterException.requireDuration(params, "idleAfter", Duration.ofSeconds(1), true);
    ParameterException.requireDuration(params, "idleInterval", Duration.ofSeconds(1), false);
  }
}
