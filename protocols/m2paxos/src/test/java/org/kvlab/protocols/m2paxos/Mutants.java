package org.kvlab.protocols.m2paxos;

import java.util.List;
import java.util.Map;

/**
 * Deliberately broken variants of M²Paxos, each differing from {@link M2PaxosServer} in one rule, to show that the
 * checkers catch them. Each is an {@link Observed} protocol, so a test also sees the replicas' decisions.
 */
final class Mutants {
  private Mutants() {}

  /**
   * Bug: the owner decides a command as soon as it accepted it itself, without waiting for a quorum of ACKACCEPTs
   * (it still sends the ACCEPT and the DECIDE). A partition or a competing acquisition then decides another command
   * at that instance elsewhere while this one was already answered.
   */
  static Observed ownerWithoutQuorum() {
    Observed[] o = new Observed[1];
    o[0] = new Observed(new M2Paxos(), () -> new Observed.Watched(o[0]) {
      @Override
      int ownerAcks() {
        return 0; // BUG: decide on its own accept alone
      }
    });
    return o[0];
  }

  /**
   * Bug: the Acquisition phase ignores what the quorum's promises report (Alg. 6's toForce is always empty): the new
   * owner puts its own command at LastDecided + 1, over a command an earlier owner may have had chosen there.
   */
  static Observed acquisitionIgnoresToForce() {
    Observed[] o = new Observed[1];
    o[0] = new Observed(new M2Paxos(), () -> new Observed.Watched(o[0]) {
      @Override
      Forcing.Plan plan(Map<String, Long> from, List<Held> held, Command own) {
        return super.plan(from, List.of(), own); // BUG: toForce ignored
      }
    });
    return o[0];
  }
}
