package org.kvlab.cluster.ec2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.config.ClusterConfig;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceLifecycleType;
import software.amazon.awssdk.services.ec2.model.IpPermission;
import software.amazon.awssdk.services.ec2.model.IpRange;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.Tag;

/**
 * The EC2 backend against moto (a local EC2 API emulator, started by the test on a loopback port): up in two
 * regions, list with costs, down removing exactly the cluster's resources, dry run, errors. The emulator's
 * instances have fake addresses; the address hook maps them to 127.0.0.1 and nothing dials them.
 */
@Timeout(300)
class Ec2ProvisionerTest {
  static final String CALLER = "203.0.113.7/32";
  static final String UBUNTU_OWNER = "099720109477";
  static final String UBUNTU_NAME = "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*";
  static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

  static Ec2Emulator emulator;

  @TempDir
  Path state;

  Ec2Clients clients;
  final List<String> events = new ArrayList<>();
  final Ec2Listener recorder = new Ec2Listener() {
    @Override
    public void progress(String message) {
      events.add("progress " + message);
    }

    @Override
    public void created(Ec2Resource r) {
      events.add("created " + r);
    }

    @Override
    public void deleted(Ec2Resource r) {
      events.add("deleted " + r);
    }
  };

  @BeforeAll
  static void startEmulator() throws Exception {
    emulator = Ec2Emulator.start();
  }

  @AfterAll
  static void stopEmulator() throws Exception {
    if (emulator != null) {
      long pid = emulator.pid();
      emulator.close();
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the emulator is stopped");
    }
  }

  @BeforeEach
  void fresh() throws Exception {
    emulator.reset();
    // Dummy credentials, for the emulator only.
    clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")), emulator.endpoint);
  }

  @AfterEach
  void closeClients() {
    clients.close();
  }

  Ec2Provisioner provisioner() {
    return new Ec2Provisioner(clients, PriceTable.bundled(), recorder,
        new Ec2Provisioner.Options(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMillis(100), Duration.ofSeconds(60), state));
  }

  static String clusterYaml(String name, String ec2) {
    return "name: " + name + "\nprotocol: eventual\ndatacenters: 2\npartitions: 2\nlocal: { host: 127.0.0.1, basePort: 7300 }\n"
        + "ec2:\n" + ec2;
  }

  static final String TWO_REGIONS = """
        instanceType: t3.small
        regions: [us-east-1, eu-west-1]
        regionPerDatacenter: true
        amiLookup: { owner: "099720109477", name: "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*" }
        user: ubuntu
        expiryHours: 3
        owner: alice
      """;

  record Cluster(ClusterConfig config, Ec2Spec spec) {}

  static Cluster cluster(String name, String ec2) throws Exception {
    String yaml = clusterYaml(name, ec2);
    ClusterConfig config = ClusterConfig.parse(yaml, name + ".yaml");
    return new Cluster(config, Ec2Spec.parse(yaml, name + ".yaml", config));
  }

  Ec2Client sdk(String region) {
    return clients.region(region);
  }

  List<Instance> instances(String region, Filter... filters) {
    return sdk(region).describeInstances(b -> b.filters(filters)).reservations().stream()
        .flatMap(r -> r.instances().stream()).toList();
  }

  static Filter live() {
    return Filter.builder().name("instance-state-name").values("pending", "running").build();
  }

  static Map<String, String> tags(List<Tag> tags) {
    return tags.stream().collect(Collectors.toMap(Tag::key, Tag::value));
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void up_creates_tagged_key_pairs_groups_and_instances_in_two_regions_and_hands_on_mapped_hosts() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Cluster up = provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");

    Instant expires = NOW.plus(Duration.ofHours(3));
    assertEquals(expires, up.expires());
    assertEquals(4, up.hosts().size());
    for (Ec2Host h : up.hosts()) {
      assertEquals("127.0.0.1", h.host(), "hosts come from the address hook, never the emulator's fake addresses");
      assertEquals("ubuntu", h.user());
      assertEquals(22, h.sshPort());
      assertEquals(h.datacenter() == 0 ? "us-east-1" : "eu-west-1", h.instance().region());
      assertEquals("running", h.instance().state());
    }
    assertEquals(List.of(0, 0, 1, 1), up.hosts().stream().map(Ec2Host::datacenter).toList());
    assertEquals(List.of(0, 1, 0, 1), up.hosts().stream().map(Ec2Host::index).toList());

    // The private key: a 0600 PEM file under the state directory, never in an event.
    Path key = up.keyFile();
    assertTrue(key.startsWith(state));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
    assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----\n"));
    assertTrue(events.stream().noneMatch(e -> e.contains("PRIVATE KEY") || e.contains("MII")), events.toString());

    Map<String, Set<String>> publicIps = new java.util.HashMap<>();
    for (String region : List.of("us-east-1", "eu-west-1")) {
      int dc = region.equals("us-east-1") ? 0 : 1;
      List<Instance> mine = instances(region, Filter.builder().name("tag:kvlab:cluster").values("wan").build(), live());
      assertEquals(2, mine.size(), region);
      publicIps.put(region, mine.stream().map(Instance::publicIpAddress).collect(Collectors.toSet()));
      for (Instance i : mine) {
        Map<String, String> t = tags(i.tags());
        assertEquals("wan", t.get("kvlab:cluster"));
        assertEquals("alice", t.get("kvlab:owner"));
        assertEquals(expires.toString(), t.get("kvlab:expires"));
        assertEquals(Integer.toString(dc), t.get("kvlab:datacenter"));
        assertEquals("t3.small", i.instanceTypeAsString());
        assertEquals("kvlab-wan-alice", i.keyName());
        assertEquals("terminate", sdk(region).describeInstanceAttribute(b -> b.instanceId(i.instanceId())
            .attribute("instanceInitiatedShutdownBehavior")).instanceInitiatedShutdownBehavior().value());
        String userData = new String(Base64.getDecoder().decode(sdk(region).describeInstanceAttribute(b -> b
            .instanceId(i.instanceId()).attribute("userData")).userData().value()), StandardCharsets.UTF_8);
        assertTrue(userData.startsWith("#!/bin/bash\n"), userData);
        assertTrue(userData.contains("EXPIRES='" + expires + "'"), userData);
        assertTrue(userData.contains("OnCalendar=2026-11-24 15:00:00 UTC"), userData);
        assertTrue(userData.contains("shutdown -h +\"$minutes\""), userData);
        assertTrue(userData.contains("openjdk-17-jdk-headless"), userData);
        assertTrue(userData.indexOf("shutdown -h") < userData.indexOf("openjdk-17"), "the expiry is armed before the JDK install");
      }
      var keys = sdk(region).describeKeyPairs(b -> b.filters(Filter.builder().name("tag:kvlab:cluster").values("wan").build())).keyPairs();
      assertEquals(List.of("kvlab-wan-alice"), keys.stream().map(k -> k.keyName()).toList(), region);
      assertEquals("alice", tags(keys.get(0).tags()).get("kvlab:owner"));
    }
    // Security groups: only the cluster's own group, the caller, and the other region's instances may come in.
    for (String region : List.of("us-east-1", "eu-west-1")) {
      String other = region.equals("us-east-1") ? "eu-west-1" : "us-east-1";
      List<SecurityGroup> groups = sdk(region).describeSecurityGroups(b -> b.filters(
          Filter.builder().name("tag:kvlab:cluster").values("wan").build())).securityGroups();
      assertEquals(1, groups.size(), region);
      SecurityGroup g = groups.get(0);
      assertEquals("kvlab-wan-alice", g.groupName());
      assertEquals(expires.toString(), tags(g.tags()).get("kvlab:expires"));
      Set<String> cidrs = new HashSet<>();
      boolean self = false;
      for (IpPermission p : g.ipPermissions()) {
        p.ipRanges().stream().map(IpRange::cidrIp).forEach(cidrs::add);
        self |= p.userIdGroupPairs().stream().anyMatch(pair -> g.groupId().equals(pair.groupId()));
        if (p.ipRanges().stream().anyMatch(r -> r.cidrIp().equals(CALLER))) {
          assertTrue((p.fromPort() == 22 && p.toPort() == 22) || (p.fromPort() == 7300 && p.toPort() == 7303), p.toString());
        }
      }
      assertTrue(self, "the cluster's own group may come in: " + g.ipPermissions());
      Set<String> expected = new HashSet<>(Set.of(CALLER));
      publicIps.get(other).forEach(ip -> expected.add(ip + "/32"));
      assertEquals(expected, cidrs, "ingress only from the caller and the other region's instances in " + region);
    }
    assertTrue(events.stream().anyMatch(e -> e.startsWith("created instance") && e.contains("us-east-1")), events.toString());
    assertTrue(events.stream().anyMatch(e -> e.startsWith("created security group") && e.contains("eu-west-1")), events.toString());
  }

  @Test
  void list_shows_the_clusters_instances_since_their_launch_with_an_hourly_cost() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Provisioner p = provisioner();
    Ec2Cluster up = p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), AddressMapper.PUBLIC);
    List<Ec2Instance> list = p.list(c.spec().regions(), Optional.of("wan"));
    assertEquals(up.hosts().stream().map(h -> h.instance().id()).sorted().toList(),
        list.stream().map(Ec2Instance::id).sorted().toList());
    BigDecimal total = BigDecimal.ZERO;
    for (Ec2Instance i : list) {
      assertEquals("wan", i.cluster());
      assertEquals("alice", i.owner());
      assertTrue(i.launched() != null, "since when it runs");
      assertEquals(NOW.plus(Duration.ofHours(3)), i.expires());
      BigDecimal price = i.usdPerHour().orElseThrow();
      assertEquals(new BigDecimal(i.region().equals("us-east-1") ? "0.0208" : "0.0228"), price, "t3.small in " + i.region());
      total = total.add(price);
    }
    assertEquals(0, new BigDecimal("0.0872").compareTo(total));
    assertEquals(0, new BigDecimal("0.0872").compareTo(up.usdPerHour().orElseThrow()));
    assertTrue(p.list(c.spec().regions(), Optional.of("other")).isEmpty());
  }

  @Test
  void down_deletes_exactly_what_carries_the_clusters_tags_and_nothing_else() throws Exception {
    // Unrelated resources first, in both regions: an untagged instance and group, and another owner's kvlab instance.
    Map<String, List<String>> keep = new java.util.HashMap<>();
    for (String region : List.of("us-east-1", "eu-west-1")) {
      String ami = sdk(region).describeImages(b -> b.owners(UBUNTU_OWNER)).images().get(0).imageId();
      String unrelated = sdk(region).runInstances(b -> b.imageId(ami).instanceType("t3.micro").minCount(1).maxCount(1))
          .instances().get(0).instanceId();
      String others = sdk(region).runInstances(b -> b.imageId(ami).instanceType("t3.micro").minCount(1).maxCount(1)
          .tagSpecifications(t -> t.resourceType("instance").tags(Tag.builder().key("kvlab:cluster").value("wan").build(),
              Tag.builder().key("kvlab:owner").value("bob").build()))).instances().get(0).instanceId();
      String group = sdk(region).createSecurityGroup(b -> b.groupName("unrelated").description("not kvlab's")).groupId();
      sdk(region).createKeyPair(b -> b.keyName("unrelated-key"));
      keep.put(region, List.of(unrelated, others, group));
    }
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Provisioner p = provisioner();
    Ec2Cluster up = p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    Set<String> mine = up.hosts().stream().map(h -> h.instance().id()).collect(Collectors.toSet());

    List<Ec2Resource> deleted = p.down("wan", "alice", c.spec().regions());

    assertEquals(mine, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.INSTANCE).map(Ec2Resource::id)
        .collect(Collectors.toSet()));
    assertEquals(2, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.SECURITY_GROUP).count());
    assertEquals(2, deleted.stream().filter(r -> r.kind() == Ec2Resource.Kind.KEY_PAIR).count());
    assertFalse(Files.exists(up.keyFile()), "the local key file is deleted too");
    for (String region : List.of("us-east-1", "eu-west-1")) {
      Map<String, String> states = instances(region).stream()
          .collect(Collectors.toMap(Instance::instanceId, i -> i.state().nameAsString()));
      for (Ec2Host h : up.hosts()) {
        if (h.instance().region().equals(region)) {
          assertEquals("terminated", states.get(h.instance().id()));
        }
      }
      assertEquals("running", states.get(keep.get(region).get(0)), "the untagged instance stays");
      assertEquals("running", states.get(keep.get(region).get(1)), "another owner's instance of the same cluster name stays");
      Set<String> groups = sdk(region).describeSecurityGroups().securityGroups().stream().map(SecurityGroup::groupName)
          .collect(Collectors.toSet());
      assertTrue(groups.contains("unrelated"), groups.toString());
      assertFalse(groups.contains("kvlab-wan-alice"), groups.toString());
      Set<String> keys = sdk(region).describeKeyPairs().keyPairs().stream().map(k -> k.keyName()).collect(Collectors.toSet());
      assertEquals(Set.of("unrelated-key"), keys, region);
    }
    assertTrue(p.list(c.spec().regions(), Optional.of("wan")).stream().allMatch(i -> i.owner().equals("bob")));
    assertTrue(p.down("wan", "alice", c.spec().regions()).isEmpty(), "a second down finds nothing");
  }

  @Test
  void dry_run_describes_what_up_would_create_and_its_cost_and_creates_nothing() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Plan plan = provisioner().plan(c.config(), c.spec());
    assertEquals(4, plan.instances());
    assertEquals(0, new BigDecimal("0.0872").compareTo(plan.usdPerHour().orElseThrow()));
    String text = String.join("\n", plan.lines());
    assertTrue(text.contains("us-east-1: key pair kvlab-wan-alice, security group kvlab-wan-alice"), text);
    assertTrue(text.contains("datacenter 1: 2 x t3.small (on-demand) in eu-west-1"), text);
    assertTrue(text.contains("about USD 0.0872 per hour, at most USD 0.26 until the expiry"), text);
    assertTrue(text.contains("prices of " + PriceTable.bundled().date()), text);
    for (String region : List.of("us-east-1", "eu-west-1")) {
      assertTrue(instances(region).isEmpty(), region);
      assertTrue(sdk(region).describeKeyPairs().keyPairs().isEmpty(), region);
      assertTrue(sdk(region).describeSecurityGroups().securityGroups().stream().allMatch(g -> g.groupName().equals("default")));
    }
    assertTrue(events.isEmpty(), events.toString());
    assertFalse(Files.exists(state.resolve("wan")));
  }

  @Test
  void a_type_missing_from_the_price_table_gives_an_unknown_cost_not_a_guess() throws Exception {
    Cluster c = cluster("odd", TWO_REGIONS.replace("t3.small", "x2iedn.32xlarge"));
    Ec2Plan plan = provisioner().plan(c.config(), c.spec());
    assertTrue(plan.usdPerHour().isEmpty());
    assertTrue(plan.cost().contains("the price table has no price for x2iedn.32xlarge in us-east-1"), plan.cost());
  }

  @Test
  void spot_instances_are_requested_as_spot_with_the_same_tags() throws Exception {
    Cluster c = cluster("cheap", TWO_REGIONS + "  spot: { maxWait: 30s, then: fail }\n");
    Ec2Cluster up = provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertEquals(4, up.hosts().size());
    for (Ec2Host h : up.hosts()) {
      assertTrue(h.instance().spot(), h.toString());
      Instance i = instances(h.instance().region(), Filter.builder().name("instance-id").values(h.instance().id()).build()).get(0);
      assertEquals(InstanceLifecycleType.SPOT, i.instanceLifecycle());
      assertEquals("cheap", tags(i.tags()).get("kvlab:cluster"));
    }
    assertTrue(events.stream().anyMatch(e -> e.contains("spot")), events.toString());
  }

  @Test
  void an_ami_id_missing_in_a_region_is_named_with_the_fix_and_nothing_is_created() throws Exception {
    String real = sdk("us-east-1").describeImages(b -> b.owners(UBUNTU_OWNER)).images().get(0).imageId();
    Cluster c = cluster("wan", """
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          ami: { us-east-1: %s, eu-west-1: ami-0123456789abcdef0 }
        """.formatted(real));
    Ec2Error e = assertThrows(Ec2Error.class,
        () -> provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().contains("AMI ami-0123456789abcdef0 does not exist in region eu-west-1"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: in wan.yaml, give eu-west-1's id of the image under ec2.ami.eu-west-1"), e.getMessage());
    for (String region : List.of("us-east-1", "eu-west-1")) {
      assertTrue(instances(region).isEmpty());
      assertTrue(sdk(region).describeKeyPairs().keyPairs().isEmpty());
    }
  }

  @Test
  void an_ami_lookup_without_a_match_is_named_with_the_fix() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS.replace("ubuntu-xenial", "no-such-release"));
    Ec2Error e = assertThrows(Ec2Error.class,
        () -> provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().startsWith("region us-east-1 has no x86_64 AMI named 'ubuntu/images/hvm-ssd/no-such-release"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: check the name pattern and owner in ec2.amiLookup of wan.yaml"), e.getMessage());
  }

  @Test
  void a_second_up_of_a_running_cluster_is_refused_with_the_way_out() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Provisioner p = provisioner();
    p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    Ec2Error e = assertThrows(Ec2Error.class, () -> p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().contains("cluster wan (owner alice) already has resources in EC2"), e.getMessage());
    assertTrue(e.getMessage().contains("kvlab ec2 down wan.yaml"), e.getMessage());
    assertEquals(4, p.list(c.spec().regions(), Optional.of("wan")).size(), "the running cluster is untouched");
  }

  @Test
  void a_bad_caller_address_is_refused_before_anything_is_created() throws Exception {
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Error e = assertThrows(Ec2Error.class,
        () -> provisioner().up(c.config(), c.spec(), CallerAddress.fixed("0.0.0.0/0"), i -> "127.0.0.1"));
    assertTrue(e.getMessage().contains("'0.0.0.0/0' is not an IPv4 address or a CIDR block of /16 to /32"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: give your public IPv4 address, e.g. --caller-cidr"), e.getMessage());
    assertTrue(instances("us-east-1").isEmpty());
  }

  @Test
  void missing_credentials_are_named_with_the_fix_before_anything_is_created() throws Exception {
    Ec2Clients none = new Ec2Clients(() -> {
      throw software.amazon.awssdk.core.exception.SdkClientException.create(
          "Unable to load credentials from any of the providers in the chain");
    }, emulator.endpoint);
    Cluster c = cluster("wan", TWO_REGIONS);
    Ec2Provisioner p = new Ec2Provisioner(none, PriceTable.bundled(), recorder,
        new Ec2Provisioner.Options(Clock.systemUTC(), Duration.ofMillis(100), Duration.ofSeconds(60), state));
    Ec2Error e = assertThrows(Ec2Error.class, () -> p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().startsWith("no AWS credentials found (Unable to load credentials"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: give them the AWS SDK's default way: run 'aws configure'"), e.getMessage());
    assertThrows(Ec2Error.class, () -> p.list(c.spec().regions(), Optional.empty()));
    assertThrows(Ec2Error.class, () -> p.down("wan", "alice", c.spec().regions()));
    assertTrue(instances("us-east-1").isEmpty());
  }

  /** Makes every spot RunInstances fail as AWS does without spot capacity; counts the attempts. */
  static final class NoSpotCapacity implements software.amazon.awssdk.core.interceptor.ExecutionInterceptor {
    final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void beforeExecution(software.amazon.awssdk.core.interceptor.Context.BeforeExecution context,
        software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
      if (context.request() instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest r
          && r.instanceMarketOptions() != null) {
        attempts.incrementAndGet();
        throw software.amazon.awssdk.services.ec2.model.Ec2Exception.builder().statusCode(500)
            .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                .errorCode("InsufficientInstanceCapacity").errorMessage("no spot capacity (test)").build())
            .build();
      }
    }
  }

  Ec2Provisioner withoutSpotCapacity(NoSpotCapacity interceptor) {
    clients.close();
    clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
        emulator.endpoint, List.of(interceptor));
    return provisioner();
  }

  @Test
  void without_spot_capacity_up_retries_until_max_wait_then_starts_on_demand_instances() throws Exception {
    NoSpotCapacity noSpot = new NoSpotCapacity();
    Cluster c = cluster("fallback", TWO_REGIONS + "  spot: { maxWait: 300ms, then: on-demand }\n");
    Ec2Cluster up = withoutSpotCapacity(noSpot).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertEquals(4, up.hosts().size());
    assertTrue(up.hosts().stream().noneMatch(h -> h.instance().spot()), up.hosts().toString());
    assertTrue(noSpot.attempts.get() >= 4, "retried in both datacenters: " + noSpot.attempts.get());
    assertTrue(events.stream().anyMatch(e -> e.contains("no spot capacity in eu-west-1 after 300 ms (InsufficientInstanceCapacity):"
        + " starting on-demand instances")), events.toString());
  }

  @Test
  void without_spot_capacity_and_then_fail_up_fails_and_deletes_what_it_created() throws Exception {
    NoSpotCapacity noSpot = new NoSpotCapacity();
    Cluster c = cluster("nospot", TWO_REGIONS + "  spot: { maxWait: 0s, then: fail }\n");
    Ec2Provisioner p = withoutSpotCapacity(noSpot);
    Ec2Error e = assertThrows(Ec2Error.class, () -> p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().startsWith("no spot t3.small capacity in us-east-1 within 0 ms (InsufficientInstanceCapacity)."
        + " Fix: try again later"), e.getMessage());
    assertEquals(1, noSpot.attempts.get());
    assertTrue(p.tagged("nospot", "alice", c.spec().regions()).isEmpty(), "the key pairs and groups up created are deleted");
    assertTrue(events.stream().anyMatch(x -> x.startsWith("deleted security group")), events.toString());
    assertFalse(Files.exists(p.keyFile("nospot")));
  }
}
