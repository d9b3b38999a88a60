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
        assertTrue(userData.contains("LIFETIME_MINUTES=180\n"), userData);
        assertTrue(userData.contains("OnCalendar=$EXPIRES"), userData);
        assertTrue(userData.contains("shutdown -h +\"$LIFETIME_MINUTES\""), userData);
        assertTrue(userData.contains("openjdk-17-jdk-headless"), userData);
        assertTrue(userData.indexOf("shutdown -h") < userData.indexOf("openjdk-17"), "the expiry is armed before the JDK install");
      }
      var keys = sdk(region).describeKeyPairs(b -> b.filters(Filter.builder().name("tag:kvlab:cluster").values("wan").build())).keyPairs();
      assertEquals(List.of("kvlab-wan-alice"), keys.stream().map(k -> k.keyName()).toList(), region);
      assertEquals("alice", tags(keys.get(0).tags()).get("kvlab:owner"));
    }
    // Security groups: only the cluster's own group, the caller, and the cluster's instances' public addresses.
    for (String region : List.of("us-east-1", "eu-west-1")) {
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
        p.ipRanges().forEach(r -> assertTrue(Ingress.DESCRIPTION.matcher(r.description()).matches(), r.toString()));
        p.userIdGroupPairs().forEach(r -> assertTrue(Ingress.DESCRIPTION.matcher(r.description()).matches(), r.toString()));
        self |= p.userIdGroupPairs().stream().anyMatch(pair -> g.groupId().equals(pair.groupId()));
        if (p.ipRanges().stream().anyMatch(r -> r.cidrIp().equals(CALLER))) {
          assertTrue((p.fromPort() == 22 && p.toPort() == 22) || (p.fromPort() == 7300 && p.toPort() == 7303), p.toString());
        }
      }
      assertTrue(self, "the cluster's own group may come in: " + g.ipPermissions());
      Set<String> expected = new HashSet<>(Set.of(CALLER));
      publicIps.values().forEach(ips -> ips.forEach(ip -> expected.add(ip + "/32")));
      assertEquals(expected, cidrs, "ingress only from the caller and the cluster's instances in " + region);
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
      assertEquals(new BigDecimal(i.region().equals("us-east-1") ? "0.0258" : "0.0278"), price,
          "t3.small in " + i.region() + " and its public IPv4 address");
      total = total.add(price);
    }
    assertEquals(0, new BigDecimal("0.1072").compareTo(total));
    assertEquals(0, new BigDecimal("0.1072").compareTo(up.usdPerHour().orElseThrow()));
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
    // 2 x 0.0208 (us-east-1) + 2 x 0.0228 (eu-west-1) + 4 public IPv4 addresses x 0.005
    assertEquals(0, new BigDecimal("0.1072").compareTo(plan.usdPerHour().orElseThrow()), plan.usdPerHour().toString());
    String text = String.join("\n", plan.lines());
    assertTrue(text.contains("us-east-1: key pair kvlab-wan-alice, security group kvlab-wan-alice"), text);
    assertTrue(text.contains("datacenter 1: 2 x t3.small (on-demand) in eu-west-1"), text);
    assertTrue(text.contains("about USD 0.1072 per hour, at most USD 0.32 until the expiry"), text);
    assertTrue(text.contains("plus USD 0.005/h per public IPv4 address"), text);
    assertTrue(text.contains("7 of AWS's 60 rules per group"), text);
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
  static Answer noSpotCapacity() {
    return new Answer(r -> r instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest run
        && run.instanceMarketOptions() != null, "InsufficientInstanceCapacity", Integer.MAX_VALUE);
  }

  @Test
  void without_spot_capacity_up_retries_until_max_wait_then_starts_on_demand_instances() throws Exception {
    Answer noSpot = noSpotCapacity();
    Cluster c = cluster("fallback", TWO_REGIONS + "  spot: { maxWait: 300ms, then: on-demand }\n");
    Ec2Cluster up = answering(noSpot).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertEquals(4, up.hosts().size());
    assertTrue(up.hosts().stream().noneMatch(h -> h.instance().spot()), up.hosts().toString());
    assertTrue(noSpot.failed.get() >= 4, "retried in both datacenters: " + noSpot.failed.get());
    assertTrue(events.stream().anyMatch(e -> e.contains("no spot capacity in eu-west-1 after 300 ms (InsufficientInstanceCapacity):"
        + " starting on-demand instances")), events.toString());
  }

  @Test
  void without_spot_capacity_and_then_fail_up_fails_and_deletes_what_it_created() throws Exception {
    Answer noSpot = noSpotCapacity();
    Cluster c = cluster("nospot", TWO_REGIONS + "  spot: { maxWait: 0s, then: fail }\n");
    Ec2Provisioner p = answering(noSpot);
    Ec2Error e = assertThrows(Ec2Error.class, () -> p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().startsWith("no spot t3.small capacity in us-east-1 within 0 ms (InsufficientInstanceCapacity)."
        + " Fix: try again later"), e.getMessage());
    assertEquals(1, noSpot.failed.get());
    assertTrue(p.tagged("nospot", "alice", c.spec().regions()).isEmpty(), "the key pairs and groups up created are deleted");
    assertTrue(events.stream().anyMatch(x -> x.startsWith("deleted security group")), events.toString());
    assertFalse(Files.exists(p.keyFile("nospot")));
  }

  // ---------------------------------------------------------------------------------------------
  // AWS's documented rules the emulator does not enforce

  static final String ONE_REGION = TWO_REGIONS.replace("regions: [us-east-1, eu-west-1]\n  regionPerDatacenter: true\n",
      "regions: [us-east-1]\n");

  /**
   * Whether AWS lets a TCP connection from {@code sender} to {@code dialed}:{@code port} into {@code group}, as the
   * VPC guide documents it: a rule naming a security group matches traffic from the private address of an instance
   * in that group, i.e. traffic to the receiver's private address; traffic to a public address arrives from the
   * sender's public address, which only an address range can match.
   */
  static boolean admitted(SecurityGroup group, Instance receiver, String dialed, String senderPublic, String senderPrivate,
      Set<String> senderGroups, int port) {
    boolean toPrivate = dialed.equals(receiver.privateIpAddress());
    String source = toPrivate ? senderPrivate : senderPublic;
    for (IpPermission p : group.ipPermissions()) {
      boolean tcp = p.ipProtocol().equals("tcp") || p.ipProtocol().equals("-1");
      if (!tcp || port < p.fromPort() || port > p.toPort()) {
        continue;
      }
      if (source != null && p.ipRanges().stream().anyMatch(r -> contains(r.cidrIp(), source))) {
        return true;
      }
      if (toPrivate && p.userIdGroupPairs().stream().anyMatch(g -> senderGroups.contains(g.groupId()))) {
        return true;
      }
    }
    return false;
  }

  static boolean contains(String cidr, String ip) {
    String[] parts = cidr.split("/");
    int bits = Integer.parseInt(parts[1]);
    long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
    return (toLong(parts[0]) & mask) == (toLong(ip) & mask);
  }

  static long toLong(String ip) {
    long v = 0;
    for (String o : ip.split("\\.")) {
      v = (v << 8) | Integer.parseInt(o);
    }
    return v;
  }

  /** The groups of an instance (of its network interfaces: RunInstances names the group on its interface). */
  static Set<String> groupsOf(Instance i) {
    Set<String> out = new HashSet<>();
    i.securityGroups().forEach(g -> out.add(g.groupId()));
    i.networkInterfaces().forEach(n -> n.groups().forEach(g -> out.add(g.groupId())));
    return out;
  }

  void everyDialIsAdmitted(String name, String ec2) throws Exception {
    Cluster c = cluster(name, ec2);
    Ec2Cluster up = provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), AddressMapper.PUBLIC);
    Map<String, Instance> byId = new java.util.HashMap<>();
    Map<String, SecurityGroup> groupById = new java.util.HashMap<>();
    for (String region : c.spec().regions()) {
      instances(region, Filter.builder().name("tag:kvlab:cluster").values(name).build(), live())
          .forEach(i -> byId.put(i.instanceId(), i));
      sdk(region).describeSecurityGroups(b -> b.filters(Filter.builder().name("tag:kvlab:cluster").values(name).build()))
          .securityGroups().forEach(g -> groupById.put(g.groupId(), g));
    }
    int checked = 0;
    for (Ec2Host receiver : up.hosts()) {
      Instance r = byId.get(receiver.instance().id());
      assertEquals(1, groupsOf(r).size(), r.toString());
      SecurityGroup group = groupById.get(groupsOf(r).iterator().next());
      for (int port = 7300; port <= 7303; port++) {
        // every server and client of the cluster dials every server at its host in the cluster file
        for (Ec2Host sender : up.hosts()) {
          Instance s = byId.get(sender.instance().id());
          Set<String> senderGroups = groupsOf(s);
          assertTrue(admitted(group, r, receiver.host(), s.publicIpAddress(), s.privateIpAddress(), senderGroups, port),
              sender.instance().id() + " (" + sender.instance().region() + ") -> " + receiver.host() + ":" + port
                  + " is not admitted by " + group.ipPermissions());
          checked++;
        }
        // and this machine (status, control) dials it from the caller's address
        assertTrue(admitted(group, r, receiver.host(), CALLER.replace("/32", ""), null, Set.of(), port));
      }
      assertTrue(admitted(group, r, receiver.host(), CALLER.replace("/32", ""), null, Set.of(), 22), "SSH from the caller");
      assertFalse(admitted(group, r, receiver.host(), "198.51.100.9", null, Set.of(), 7300), "nobody else");
    }
    assertEquals(up.hosts().size() * up.hosts().size() * 4, checked);
  }

  @Test
  void in_one_region_every_address_a_server_or_client_dials_is_admitted_by_the_rules_aws_applies() throws Exception {
    everyDialIsAdmitted("lan", ONE_REGION);
  }

  @Test
  void across_regions_every_address_a_server_or_client_dials_is_admitted_by_the_rules_aws_applies() throws Exception {
    everyDialIsAdmitted("wan", TWO_REGIONS);
  }

  @Test
  void the_rule_quota_is_checked_in_the_dry_run_and_before_anything_is_created() throws Exception {
    Cluster ok = cluster("big", TWO_REGIONS + "  instancesPerDatacenter: 28\n");
    assertTrue(String.join("\n", provisioner().plan(ok.config(), ok.spec()).lines()).contains("59 of AWS's 60 rules"));
    Cluster c = cluster("huge", TWO_REGIONS + "  instancesPerDatacenter: 29\n");
    Ec2Error e = assertThrows(Ec2Error.class, () -> provisioner().plan(c.config(), c.spec()));
    assertTrue(e.getMessage().startsWith("the cluster's 58 instances need 61 inbound rules in each region's security"
        + " group"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: start at most 57 instances"), e.getMessage());
    assertThrows(Ec2Error.class, () -> provisioner().up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    for (String region : c.spec().regions()) {
      assertTrue(instances(region).isEmpty(), region);
      assertTrue(sdk(region).describeKeyPairs().keyPairs().isEmpty(), region);
    }
    assertFalse(Files.exists(state.resolve("huge")));
  }

  /** Fails the first {@code times} matching requests with an AWS error code; records every request. */
  static final class Answer implements software.amazon.awssdk.core.interceptor.ExecutionInterceptor {
    final java.util.function.Predicate<software.amazon.awssdk.core.SdkRequest> which;
    final String code;
    final java.util.concurrent.atomic.AtomicInteger left;
    final java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
    final List<software.amazon.awssdk.core.SdkRequest> requests = java.util.Collections.synchronizedList(new ArrayList<>());

    Answer(Class<?> type, String code, int times) {
      this(type::isInstance, code, times);
    }

    Answer(java.util.function.Predicate<software.amazon.awssdk.core.SdkRequest> which, String code, int times) {
      this.which = which;
      this.code = code;
      this.left = new java.util.concurrent.atomic.AtomicInteger(times);
    }

    @Override
    public void beforeExecution(software.amazon.awssdk.core.interceptor.Context.BeforeExecution context,
        software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
      requests.add(context.request());
      if (which.test(context.request()) && left.getAndDecrement() > 0) {
        failed.incrementAndGet();
        throw software.amazon.awssdk.services.ec2.model.Ec2Exception.builder().statusCode(400)
            .awsErrorDetails(software.amazon.awssdk.awscore.exception.AwsErrorDetails.builder()
                .errorCode(code).errorMessage(code + " (test)").build())
            .build();
      }
    }
  }

  Ec2Provisioner answering(software.amazon.awssdk.core.interceptor.ExecutionInterceptor... interceptors) {
    clients.close();
    clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
        emulator.endpoint, List.of(interceptors));
    return provisioner();
  }

  @Test
  void run_instances_asks_for_a_public_address_and_standard_cpu_credits() throws Exception {
    Answer record = new Answer(Void.class, "", 0);
    Cluster c = cluster("credits", ONE_REGION);
    answering(record).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    List<software.amazon.awssdk.services.ec2.model.RunInstancesRequest> runs = record.requests.stream()
        .filter(r -> r instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest)
        .map(r -> (software.amazon.awssdk.services.ec2.model.RunInstancesRequest) r).toList();
    assertEquals(2, runs.size(), "one per datacenter");
    for (var r : runs) {
      assertEquals(1, r.networkInterfaces().size(), r.toString());
      assertEquals(Boolean.TRUE, r.networkInterfaces().get(0).associatePublicIpAddress(), "a public address, asked for");
      assertEquals(1, r.networkInterfaces().get(0).groups().size());
      assertEquals("standard", r.creditSpecification().cpuCredits(), "T3 must not start in Unlimited mode");
    }
    Cluster m5 = cluster("steady", ONE_REGION.replace("t3.small", "m5.large"));
    Answer record2 = new Answer(Void.class, "", 0);
    answering(record2).up(m5.config(), m5.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertTrue(record2.requests.stream().filter(r -> r instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest)
        .allMatch(r -> ((software.amazon.awssdk.services.ec2.model.RunInstancesRequest) r).creditSpecification() == null),
        "no credit specification for a type without credits (AWS rejects it)");
  }

  @Test
  void a_not_found_right_after_creating_the_group_or_key_pair_is_retried() throws Exception {
    Answer group = new Answer(software.amazon.awssdk.services.ec2.model.AuthorizeSecurityGroupIngressRequest.class,
        "InvalidGroup.NotFound", 2);
    Answer key = new Answer(software.amazon.awssdk.services.ec2.model.RunInstancesRequest.class, "InvalidKeyPair.NotFound", 1);
    Cluster c = cluster("fresh", TWO_REGIONS);
    Ec2Cluster up = answering(group, key).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertEquals(4, up.hosts().size());
    assertTrue(events.stream().anyMatch(e -> e.contains("yet (InvalidGroup.NotFound: just created); retrying")), events.toString());
    assertTrue(events.stream().anyMatch(e -> e.contains("yet (InvalidKeyPair.NotFound: just created); retrying")), events.toString());
  }

  @Test
  void a_not_found_that_persists_is_an_error_after_the_consistency_wait() throws Exception {
    Answer group = new Answer(software.amazon.awssdk.services.ec2.model.AuthorizeSecurityGroupIngressRequest.class,
        "InvalidGroup.NotFound", Integer.MAX_VALUE);
    Cluster c = cluster("gone", ONE_REGION);
    clients.close();
    clients = new Ec2Clients(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")),
        emulator.endpoint, List.of(group));
    FakeSleeper time = new FakeSleeper();
    Ec2Provisioner p = new Ec2Provisioner(clients, PriceTable.bundled(), recorder, new Ec2Provisioner.Options(
        Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofSeconds(5), Duration.ofSeconds(60), state, time));
    Ec2Error e = assertThrows(Ec2Error.class, () -> p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().startsWith("cannot allow the cluster and the caller in in us-east-1: InvalidGroup.NotFound"),
        e.getMessage());
    assertTrue(time.slept.compareTo(Ec2Provisioner.CONSISTENCY_WAIT) >= 0, "waited the consistency wait: " + time.slept);
    assertTrue(p.tagged("gone", "alice", c.spec().regions()).isEmpty(), "what up created is deleted");
  }

  @Test
  void spot_without_its_service_linked_role_names_the_role_and_the_permission() throws Exception {
    Answer noRole = new Answer(software.amazon.awssdk.services.ec2.model.RunInstancesRequest.class,
        "AuthFailure.ServiceLinkedRoleCreationNotPermitted", 1);
    Cluster c = cluster("slr", ONE_REGION + "  spot: { maxWait: 1m, then: fail }\n");
    Ec2Error e = assertThrows(Ec2Error.class,
        () -> answering(noRole).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().contains("aws iam create-service-linked-role --aws-service-name spot.amazonaws.com"), e.getMessage());
    assertTrue(e.getMessage().contains("iam:CreateServiceLinkedRole"), e.getMessage());
  }

  @Test
  void the_spot_quota_is_not_retried_as_missing_capacity() throws Exception {
    Answer quota = new Answer(software.amazon.awssdk.services.ec2.model.RunInstancesRequest.class,
        "MaxSpotInstanceCountExceeded", Integer.MAX_VALUE);
    Cluster c = cluster("quota", ONE_REGION + "  spot: { maxWait: 1h, then: fail }\n");
    Ec2Error e = assertThrows(Ec2Error.class,
        () -> answering(quota).up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1"));
    assertTrue(e.getMessage().contains("MaxSpotInstanceCountExceeded"), e.getMessage());
    assertTrue(e.getMessage().contains("'All Standard Spot Instance Requests' vCPU quota"), e.getMessage());
    assertEquals(1, quota.requests.stream().filter(r -> r instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest)
        .count(), "asked once, not retried for an hour");

    Answer quota2 = new Answer(r -> r instanceof software.amazon.awssdk.services.ec2.model.RunInstancesRequest run
        && run.instanceMarketOptions() != null, "MaxSpotInstanceCountExceeded", Integer.MAX_VALUE);
    Cluster fallback = cluster("quota2", ONE_REGION + "  spot: { maxWait: 1h, then: on-demand }\n");
    Ec2Cluster up = answering(quota2).up(fallback.config(), fallback.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertTrue(up.hosts().stream().noneMatch(h -> h.instance().spot()));
    assertTrue(events.stream().anyMatch(x -> x.contains("spot quota of us-east-1 is used up")), events.toString());
    assertEquals(2, quota2.failed.get(), "one spot request per datacenter, none retried");
  }

  @Test
  void down_deletes_the_clusters_known_hosts_and_up_starts_it_anew() throws Exception {
    Cluster c = cluster("hk", ONE_REGION);
    Ec2Provisioner p = provisioner();
    Files.createDirectories(p.knownHostsFile("hk").getParent());
    Files.writeString(p.knownHostsFile("hk"), "54.1.2.3 ssh-ed25519 AAAAold\n");
    p.up(c.config(), c.spec(), CallerAddress.fixed(CALLER), i -> "127.0.0.1");
    assertFalse(Files.exists(p.knownHostsFile("hk")), "a stale known_hosts of an earlier cluster is gone at up");
    Files.writeString(p.knownHostsFile("hk"), "54.1.2.3 ssh-ed25519 AAAAnew\n");
    List<Ec2Resource> deleted = p.down("hk", "alice", c.spec().regions());
    assertFalse(Files.exists(p.knownHostsFile("hk")), "a reused public address must not fail host-key checking later");
    assertTrue(deleted.stream().anyMatch(r -> r.kind() == Ec2Resource.Kind.KNOWN_HOSTS), deleted.toString());
  }
}
