package org.kvlab.protocols.camu;

import java.util.Map;
import org.kvlab.api.BaseProtocol;

/**
 * CaMu's baseline mode 'pb' as a protocol of its own, so that one bench experiment can list camu-pb, camu-tom and
 * camu side by side (a mode is a cluster parameter, which a sweep cannot vary). Same server and client as
 * {@link Camu}; the mode is fixed. See docs/protocols.md#camu.
 */
public final class CamuPb extends BaseProtocol {
  public CamuPb() {
    super("camu-pb", "CaMu's pb baseline: multi-partition transactions ordered by Calvin's periodic broadcast on every link (one all-to-all exchange per round);"
        + " deterministic execution behind the MEC gate (protocol camu with mode: pb)",
        Camu.MESSAGES, Camu.RECORD, () -> new CamuServer("pb"), CamuClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    return Camu.common();
  }
}
