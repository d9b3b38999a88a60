package org.kvlab.protocols.accf;

import java.time.Duration;
import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.VersionKey;

/**
 * The ACCF plug-in (seed 003 ch. 7): causal consistency with configurable tracking groups (one dependency entry per
 * group) and checking groups (a version becomes visible once it is stable at every server of the reader's checking
 * group). {@code tracking=datacenter, checking=datacenter} is CausalSpartan's grouping (the seed's 2 x 2 view);
 * {@code server}/{@code server} the seed's 4 x 1 view; {@code system} tracking is GentleRain's scalar.
 */
public final class Accf extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      Replicate.class, Heartbeat.class, VvShare.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getUt(), r.getSr()));

  public Accf() {
    super("accf",
        "adaptive causal consistency: configurable tracking groups (dependency entries) and checking groups (stability)",
        MESSAGES, RECORD, () -> new AccfServer(AccfServer.Variant.CORRECT), AccfClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Map.of(
        "tracking", "datacenter (default), server, system, or DC.P=GROUP per server: the tracking groups T; a"
            + " dependency set has one entry per group",
        "checking", "datacenter (default), server, system, or DC.P=GROUP[+GROUP] per server: the checking groups C;"
            + " a server shows a version once it is stable at every server of the reader's checking group",
        "checkingGroup", "client side, a checking group name, default the contacted server's first group: the"
            + " group a client's GETs ask for (mode names: dc0, dc1..., s0.0, s0.1..., all)",
        "heartbeat", "duration, default 10ms: a server with nothing to replicate sends its clock to its peers this often",
        "svvInterval", "duration, default 5ms: how often the servers of a checking group share their version vectors",
        "pruneLag", "duration, default 1s: versions older than the stable vectors minus this are pruned");
  }

  /** The timers' periods, the groups (as the servers build them) and the client's checking group. */
  @Override
  public void checkParameters(Params params, Topology topology) {
    ParameterException.requireDuration(params, "heartbeat", Duration.ofMillis(10), false);
    ParameterException.requireDuration(params, "svvInterval", Duration.ofMillis(5), false);
    ParameterException.requireDuration(params, "pruneLag", Duration.ofSeconds(1), true);
    Groups groups = new Groups(topology, params);
    String cg = params.string("checkingGroup", "");
    if (!cg.isEmpty() && groups.checkingIndex(cg) < 0) {
      throw new ParameterException("checkingGroup", "no checking group '" + cg + "' in this cluster",
          "name one of the groups of the 'checking' parameter: " + String.join(", ", groups.checkingNames())
              + ", or leave it out", groups.checkingNames());
    }
  }
}
