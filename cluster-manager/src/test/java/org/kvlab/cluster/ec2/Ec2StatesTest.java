package org.kvlab.cluster.ec2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Waiting for instance states, against a fake EC2 (FakeEc2) that produces what the emulator cannot: instances that
 * fail from pending to terminated with EC2's state reason, a termination that is still pending for a while, ids not
 * visible yet. Time is a FakeSleeper: no test waits in real time.
 */
@Timeout(60)
class Ec2StatesTest {
  static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

  @TempDir
  Path state;

  final Map<String, FakeEc2> regions = Map.of("us-east-1", new FakeEc2("us-east-1"), "eu-west-1", new FakeEc2("eu-west-1"));
  final FakeSleeper time = new FakeSleeper();
  final List<String> events = new ArrayList<>();

  Ec2Provisioner provisioner() {
    Ec2Clients clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
        regions::get);
    Ec2Listener l = new Ec2Listener() {
      @Override
      public void progress(String message) {
        events.add(message);
      }
    };
    return new Ec2Provisioner(clients, PriceTable.bundled(), l,
        new Ec2Provisioner.Options(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofSeconds(5), Duration.ofMinutes(10), state, time));
  }

  record Cluster(ClusterConfig config, Ec2Spec spec) {}

  static Cluster cluster() throws Exception {
    String yaml = "name: st\nprotocol: eventual\ndatacenters: 2\npartitions: 1\nlocal: { host: 127.0.0.1, basePort: 7300 }\n"
        + "ec2:\n  regions: [us-east-1, eu-west-1]\n  regionPerDatacenter: true\n"
        + "  ami: { us-east-1: ami-0123456789abcdef0, eu-west-1: ami-0fedcba9876543210 }\n  owner: alice\n";
    ClusterConfig config = ClusterConfig.parse(yaml, "st.yaml");
    return new Cluster(config, Ec2Spec.parse(yaml, "st.yaml", config));
  }

  Ec2Cluster up(Cluster c) {
    return provisioner().up(c.config(), c.spec(), CallerAddress.fixed("203.0.113.7/32"), AddressMapper.PUBLIC);
  }

  @Test
  void up_waits_through_pending_and_an_id_not_visible_yet() throws Exception {
    regions.get("us-east-1").runSteps = List.of(FakeEc2.Step.of("pending"), FakeEc2.Step.of("pending"),
        FakeEc2.Step.of("pending"), FakeEc2.Step.of("running"));
    regions.get("eu-west-1").notFoundAfterRun = 2;
    Ec2Cluster up = up(cluster());
    assertEquals(2, up.hosts().size());
    assertTrue(up.hosts().stream().allMatch(h -> h.instance().state().equals("running")), up.hosts().toString());
    assertTrue(time.sleeps >= 3, "polled, without real time: " + time.sleeps);
  }

  @Test
  void an_instance_failing_from_pending_is_reported_with_its_state_reason_and_everything_is_deleted() throws Exception {
    // e.g. the second region has no capacity: pending -> terminated with EC2's reason
    regions.get("eu-west-1").runSteps = List.of(FakeEc2.Step.of("pending"),
        new FakeEc2.Step("terminated", "Server.InsufficientInstanceCapacity"));
    Ec2Error e = assertThrows(Ec2Error.class, () -> up(cluster()));
    assertTrue(e.getMessage().contains("in eu-west-1 did not run: it is terminated (Server.InsufficientInstanceCapacity:"),
        e.getMessage());
    assertTrue(e.getMessage().contains("Fix: AWS had no capacity for this type there"), e.getMessage());
    assertFalse(e.getMessage().contains("internet connection"), e.getMessage());
    for (FakeEc2 r : regions.values()) {
      assertTrue(r.groups.isEmpty() && r.keys.isEmpty(), "up's cleanup deleted the groups and key pairs");
      assertTrue(r.instances.values().stream().allMatch(i -> i.state().nameAsString().equals("terminated")));
    }
  }

  @Test
  void down_right_after_a_failed_up_waits_through_pending_and_deletes_the_groups_and_key_pairs() throws Exception {
    Cluster c = cluster();
    up(c);
    // a terminate of instances that are still pending: pending, pending, shutting-down, terminated
    for (FakeEc2 r : regions.values()) {
      r.terminateSteps = List.of(FakeEc2.Step.of("pending"), FakeEc2.Step.of("pending"),
          FakeEc2.Step.of("shutting-down"), FakeEc2.Step.of("terminated"));
    }
    List<Ec2Resource> deleted = provisioner().down("st", "alice", c.spec().regions());
    assertEquals(2, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.INSTANCE).count(), deleted.toString());
    assertEquals(2, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.SECURITY_GROUP).count(), deleted.toString());
    assertEquals(2, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.KEY_PAIR).count(), deleted.toString());
    for (FakeEc2 r : regions.values()) {
      assertTrue(r.groups.isEmpty() && r.keys.isEmpty());
    }
  }

  @Test
  void instances_that_stay_pending_time_out_with_their_states_not_as_a_network_error() throws Exception {
    regions.get("us-east-1").runSteps = List.of(FakeEc2.Step.of("pending"));
    Ec2Error e = assertThrows(Ec2Error.class, () -> up(cluster()));
    assertTrue(e.getMessage().contains("did not run within 600 s (states: {pending=1})"), e.getMessage());
    assertFalse(e.getMessage().contains("did not answer"), e.getMessage());
    assertTrue(time.slept.compareTo(Duration.ofMinutes(10)) >= 0, time.slept.toString());
  }

  @Test
  void a_termination_that_never_ends_is_an_error_naming_the_states() throws Exception {
    Cluster c = cluster();
    up(c);
    regions.get("us-east-1").terminateSteps = List.of(FakeEc2.Step.of("shutting-down"));
    Ec2Error e = assertThrows(Ec2Error.class, () -> provisioner().down("st", "alice", c.spec().regions()));
    assertTrue(e.getMessage().contains("did not terminate within 600 s (states: {shutting-down=1})"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: run 'kvlab ec2 down <cluster.yaml>' again"), e.getMessage());
  }
}
