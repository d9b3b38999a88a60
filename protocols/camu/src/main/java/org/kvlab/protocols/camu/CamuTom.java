package org.kvlab.protocols.camu;

import java.util.Map;
import org.kvlab.api.BaseProtocol;

/**
 * CaMu's baseline mode 'tom' as a protocol of its own, so that one bench experiment can list camu-pb, camu-tom and
 * camu side by side (a mode is a cluster parameter, which a sweep cannot vary). Same server and client as
 * {@link Camu}; the mode is fixed. See docs/protocols.md#camu.
 */
public final class CamuTom extends BaseProtocol {
  public CamuTom() {
    super("camu-tom", "CaMu's tom baseline: multi-partition transactions ordered by Skeen-style total-order multicast on every link (only the participants exchange);"
        + " deterministic execution behind the MEC gate (protocol camu with mode: tom)",
        Camu.MESSAGES, Camu.RECORD, () -> new CamuServer("tom"), CamuClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Camu.common();
  }
}
