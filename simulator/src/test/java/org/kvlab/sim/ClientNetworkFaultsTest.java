package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.testing.OutcomeKit;

/**
 * A client reaching a server of another datacenter is subject to the faults of server links: a
 * partition holds its request (and the reply) until the heal, a slow server's replies to it are late
 * (as its messages to other servers are), a crashed server does not answer. OutcomeKit(true) sends every request to the server of datacenter 0.
 * One-way latency between datacenters is 25 ms (± 2.5), 0.2 ms (± 0.1) inside one.
 */
class ClientNetworkFaultsTest {
  private static final NodeId PRIMARY = new NodeId(0, 0);
  private static final SimSpec SPEC = SimSpec.defaults().withTopology(2, 1).withDuration(1_000_000)
      .withSettle(3_000_000);

  private static Operation putOf(SimResult r, int dc) {
    return r.history().operations().stream().filter(o -> o.dc() == dc && o.type() == Operation.Type.PUT).findFirst()
        .orElseThrow();
  }

  private static SimResult run(List<Fault> faults) {
    return new Simulation(SPEC.withFaults(faults), new OutcomeKit(true), 5, List.of(
        Script.at(1).startingAt(100_000).put("k", "from-dc1"),
        Script.at(0).startingAt(100_000).put("j", "from-dc0"))).run();
  }

  @Test
  void without_faults_then_aRemoteCallTakesOneWanRoundTrip() {
    Operation remote = putOf(run(List.of()), 1);
    long took = remote.completeMicros() - remote.invokeMicros();
    assertEquals(Outcome.OK, remote.outcome());
    assertTrue(took >= 45_000 && took <= 56_000, "one WAN round trip: " + took + " µs");
  }

  @Test
  void when_partitioned_then_theRemoteClientWaitsForTheHeal_andTheLocalOneDoesNot() {
    SimResult r = run(List.of(new Fault.Partition(0, 1, 0, 1_000_000)));
    Operation remote = putOf(r, 1);
    assertEquals(Outcome.OK, remote.outcome(), remote.describe());
    assertTrue(remote.completeMicros() >= 1_000_000 + 20_000,
        "the request flows after the heal, then the reply crosses: " + remote.describe());
    Operation local = putOf(r, 0);
    assertTrue(local.completeMicros() - local.invokeMicros() < 2_000, "same datacenter: " + local.describe());
  }

  @Test
  void when_partitionedLongerThanTheClientTimeout_then_theRemoteOperationIsInfo() {
    SimResult r = run(List.of(new Fault.Partition(0, 1, 0, 5_000_000)));
    Operation remote = putOf(r, 1);
    assertEquals(Outcome.INFO, remote.outcome(), remote.describe());
    assertEquals(remote.invokeMicros() + SimSpec.CLIENT_TIMEOUT_MICROS, remote.completeMicros());
  }

  @Test
  void when_theServerIsSlow_then_itsRepliesToRemoteClientsAreLate_likeItsServerMessages() {
    SimResult r = run(List.of(new Fault.Slow(PRIMARY, 300_000, 0, 2_000_000)));
    Operation remote = putOf(r, 1);
    Operation local = putOf(r, 0);
    assertEquals(Outcome.OK, remote.outcome());
    assertTrue(remote.completeMicros() - remote.invokeMicros() >= 345_000, remote.describe());
    // A client of the slow server's own datacenter is local (the slow fault models slow replication).
    assertTrue(local.completeMicros() - local.invokeMicros() < 2_000, local.describe());
  }

  @Test
  void when_theServerIsDown_then_theRemoteOperationTimesOutAsInfo() {
    SimResult r = run(List.of(new Fault.Crash(PRIMARY, 50_000, 3_000_000)));
    Operation remote = putOf(r, 1);
    assertEquals(Outcome.INFO, remote.outcome(), remote.describe());
    assertTrue(remote.error().contains("no answer within"), remote.error());
  }
}
