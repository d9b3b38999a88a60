package org.kvlab.protocols.gentlerain;

import java.time.Duration;
import java.util.Map;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.VersionKey;

/** The GentleRain plug-in (Du et al., SoCC 2014): causal consistency with a scalar Global Stable Time. */
public final class GentleRain extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      RotxReq.class, RotxReply.class, SliceReq.class, SliceReply.class, Replicate.class, Heartbeat.class,
      VVMessage.class, GSTMessage.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public GentleRain() {
    super("gentlerain",
        "causal consistency with physical clocks and a global stable time (GST); PUT waits out clock skew",
        MESSAGES, RECORD, GentleRainServer::new, GentleRainClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Map.of(
        "heartbeat", "duration, default 10ms: a server with nothing to replicate sends its clock to its peers this often",
        "gstInterval", "duration, default 5ms: how often the partitions of a datacenter compute the global stable time",
        "pruneLag", "duration, default 1s: versions older than the stable time minus this are pruned",
        "idleAfter", "duration, default 1s: with no client operation for this long (anywhere in the"
            + " cluster), heartbeats and the GST computation slow down to idleInterval",
        "idleInterval", "duration, default 1s: the heartbeat and GST period of an idle cluster (the first client"
            + " request restores heartbeat and gstInterval at once); set it to the heartbeat to turn the back-off off",
        "recoveryMargin", "duration, default 250ms: after a restart with data, the server's version vector starts"
            + " this far ahead of its clock");
  }

  /** Periods and timeouts must be more than 0 (the server's timers), lags and margins 0 or more. */
  @Override
  public void checkParameters(Params params, Topology topology) {
    ParameterException.requireDuration(params, "heartbeat", Duration.ofMillis(10), false);
    ParameterException.requireDuration(params, "gstInterval", Duration.ofMillis(5), false);
    ParameterException.requireDuration(params, "pruneLag", Duration.ofSeconds(1), true);
    ParameterException.requireDuration(params, "idleAfter", Duration.ofSeconds(1), true);
    ParameterException.requireDuration(params, "idleInterval", Duration.ofSeconds(1), false);
    ParameterException.requireDuration(params, "recoveryMargin", Duration.ofMillis(250), true);
  }
}
