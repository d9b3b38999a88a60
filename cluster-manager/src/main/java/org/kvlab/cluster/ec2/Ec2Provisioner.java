package org.kvlab.cluster.ec2;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.UserText;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.CreateSecurityGroupResponse;
import software.amazon.awssdk.services.ec2.model.DescribeImagesResponse;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Image;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceInterruptionBehavior;
import software.amazon.awssdk.services.ec2.model.InstanceLifecycleType;
import software.amazon.awssdk.services.ec2.model.InstanceNetworkInterfaceSpecification;
import software.amazon.awssdk.services.ec2.model.IpPermission;
import software.amazon.awssdk.services.ec2.model.KeyPairInfo;
import software.amazon.awssdk.services.ec2.model.MarketType;
import software.amazon.awssdk.services.ec2.model.Reservation;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.RunInstancesRequest;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.ShutdownBehavior;
import software.amazon.awssdk.services.ec2.model.SpotInstanceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;

/**
 * Creates, lists and deletes the EC2 resources of a kvlab cluster (docs/ec2.md): per cluster one SSH key
 * (imported as a key pair into each region), per region one security group that lets in only the cluster's own
 * instances and the caller's address, per datacenter its instances. Everything is tagged with the cluster name,
 * the owner and the expiry time; {@link #down} deletes exactly what carries the cluster's and owner's tags.
 *
 * <p>Credentials come from the given provider (the SDK's default chain outside tests) and are never written
 * anywhere. Nothing is printed: progress and per-resource events go to the {@link Ec2Listener}. Errors are
 * {@link Ec2Error}s naming the cause and the fix.
 */
public final class Ec2Provisioner {
  public static final String TAG_CLUSTER = "kvlab:cluster";
  public static final String TAG_OWNER = "kvlab:owner";
  public static final String TAG_EXPIRES = "kvlab:expires";
  public static final String TAG_DATACENTER = "kvlab:datacenter";
  public static final int SSH_PORT = 22;
  /** The states of an instance that (may) still cost money. */
  static final List<String> LIVE_STATES = List.of("pending", "running", "shutting-down", "stopping", "stopped");
  /** Spot errors that mean "no capacity now" (retried until spot.maxWait); a quota (MaxSpotInstanceCountExceeded) is not. */
  private static final Set<String> SPOT_CAPACITY_CODES = Set.of("InsufficientInstanceCapacity", "SpotMaxPriceTooLow",
      "InsufficientCapacity", "CapacityNotAvailable");
  /** What AWS answers for a resource created a moment ago that has not reached every endpoint yet (retried). */
  static final Set<String> NOT_FOUND_YET = Set.of("InvalidGroup.NotFound", "InvalidKeyPair.NotFound",
      "InvalidInstanceID.NotFound");
  /** How long a just-created resource may stay invisible before its NotFound is believed. */
  static final Duration CONSISTENCY_WAIT = Duration.ofMinutes(2);
  /** Burstable types (T2, T3, T3a, T4g): started with standard CPU credits, not in Unlimited mode. */
  static final Pattern BURSTABLE_TYPE = Pattern.compile("t\\d[a-z]*\\..*");
  private static final Set<String> NOT_RUNNING = Set.of("shutting-down", "terminated", "stopping", "stopped");
  private static final Pattern IPV4_CIDR = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(/(\\d{1,2}))?");

  /**
   * @param clock the time the expiry is computed from
   * @param pollInterval how often waiters poll (AWS: 15 s is the SDK's default; an emulator answers at once)
   * @param waitTimeout the longest wait for instances to run or terminate, and for a group to become deletable
   * @param stateRoot where each cluster's private key is kept: {@code <stateRoot>/<cluster>/key.pem}
   * @param sleeper the time and sleep of every wait ({@link Sleeper#REAL} outside tests)
   */
  public record Options(Clock clock, Duration pollInterval, Duration waitTimeout, Path stateRoot, Sleeper sleeper) {
    public Options(Clock clock, Duration pollInterval, Duration waitTimeout, Path stateRoot) {
      this(clock, pollInterval, waitTimeout, stateRoot, Sleeper.REAL);
    }

    public static Options defaults() {
      return new Options(Clock.systemUTC(), Duration.ofSeconds(5), Duration.ofMinutes(10), Path.of(".kvlab", "ec2"));
    }
  }

  private final Ec2Clients clients;
  private final PriceTable prices;
  private final Ec2Listener listener;
  private final Options options;

  public Ec2Provisioner(Ec2Clients clients, PriceTable prices, Ec2Listener listener, Options options) {
    this.clients = clients;
    this.prices = prices;
    this.listener = listener;
    this.options = options;
  }

  /** The resource names of a cluster (key pair and security group): {@code kvlab-<cluster>-<owner>}. */
  public static String resourceName(String cluster, String owner) {
    return "kvlab-" + cluster + "-" + owner;
  }

  /** Where {@code up} keeps the cluster's private key. */
  public Path keyFile(String cluster) {
    return options.stateRoot().resolve(cluster).resolve("key.pem");
  }

  /**
   * Where the host keys of the cluster's instances are recorded. {@code up} starts it anew and {@code down} deletes
   * it: AWS hands public addresses to other instances later, whose host keys differ.
   */
  public Path knownHostsFile(String cluster) {
    return options.stateRoot().resolve(cluster).resolve("known_hosts");
  }

  // ---------------------------------------------------------------------------------------------
  // dry run

  /** What {@code up} would create and its cost; calls nothing in AWS. */
  public Ec2Plan plan(ClusterConfig config, Ec2Spec spec) {
    String name = resourceName(config.name(), spec.owner());
    int[] ports = portRange(config);
    int instances = config.topology().datacenters() * spec.instancesPerDatacenter();
    Ingress.check(instances);
    List<Ec2Plan.RegionPlan> regions = new ArrayList<>();
    for (String region : distinctRegions(spec)) {
      List<String> ingress = new ArrayList<>();
      for (Ingress.Rule r : Ingress.base(name, "the caller's address", SSH_PORT, ports)) {
        ingress.add(r.toString());
      }
      ingress.add("TCP " + ports[0] + "-" + ports[1] + " from each of the " + instances + " instances' public"
          + " address /32, once they run (" + Ingress.count(instances) + " of AWS's " + Ingress.MAX_RULES_PER_GROUP
          + " rules per group)");
      String ami = spec.lookup() == null ? spec.ami().get(region)
          : "newest '" + spec.lookup().name() + "' of owner " + spec.lookup().owner();
      regions.add(new Ec2Plan.RegionPlan(region, name, name, ingress, ami));
    }
    List<Ec2Plan.DatacenterPlan> dcs = new ArrayList<>();
    BigDecimal total = BigDecimal.ZERO;
    List<String> missing = new ArrayList<>();
    String market = spec.spot() == null ? "on-demand"
        : "spot, waiting up to " + human(spec.spot().maxWait()) + ", then "
            + (spec.spot().fallbackOnDemand() ? "on-demand" : "fail");
    for (int d = 0; d < config.topology().datacenters(); d++) {
      String region = spec.region(d);
      Optional<BigDecimal> each = prices.usdPerHour(region, spec.instanceType()).map(p -> p.add(PriceTable.PUBLIC_IPV4_USD_PER_HOUR));
      if (each.isPresent()) {
        total = total.add(each.get().multiply(BigDecimal.valueOf(spec.instancesPerDatacenter())));
      } else if (!missing.contains(spec.instanceType() + " in " + region)) {
        missing.add(spec.instanceType() + " in " + region);
      }
      dcs.add(new Ec2Plan.DatacenterPlan(d, region, spec.instancesPerDatacenter(), spec.instanceType(), market, each));
    }
    return new Ec2Plan(config.name(), spec.owner(), regions, dcs, missing.isEmpty() ? Optional.of(total) : Optional.empty(),
        missing, spec.expiry(), prices.date(), prices.source());
  }

  // ---------------------------------------------------------------------------------------------
  // up

  /**
   * Creates the cluster's key pair, security groups and instances, waits until every instance runs, and returns
   * the hosts (addresses from {@code mapper}). If anything fails after the first resource was created, what was
   * created is deleted again (as {@link #down} does) before the error is thrown.
   *
   * @param caller the caller's address, let in to SSH and the cluster's ports
   */
  public Ec2Cluster up(ClusterConfig config, Ec2Spec spec, CallerAddress caller, AddressMapper mapper) {
    String cluster = config.name();
    String owner = spec.owner();
    String callerCidr = callerCidr(caller);
    Ingress.check(config.topology().datacenters() * spec.instancesPerDatacenter());
    checkCredentials();
    List<String> regions = distinctRegions(spec);
    Map<String, String> amis = new LinkedHashMap<>();
    for (String region : regions) {
      listener.progress("checking the AMI in " + region);
      amis.put(region, resolveAmi(config, spec, region));
    }
    List<String> existing = new ArrayList<>();
    for (String region : regions) {
      existing.addAll(tagged(region, cluster, owner));
    }
    if (!existing.isEmpty()) {
      throw new Ec2Error("cluster " + cluster + " (owner " + owner + ") already has resources in EC2: "
          + String.join(", ", existing), "see them with 'kvlab ec2 list " + config.source() + "' and delete them with"
          + " 'kvlab ec2 down " + config.source() + "' before starting it again");
    }
    Instant expires = options.clock().instant().plus(spec.expiry()).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    boolean ok = false;
    try {
      Ec2Cluster result = create(config, spec, callerCidr, mapper, regions, amis, expires);
      ok = true;
      return result;
    } finally {
      if (!ok) {
        listener.progress("up failed: deleting what it created for " + cluster);
        try {
          down(cluster, owner, regions);
        } catch (RuntimeException cleanup) {
          listener.progress("could not delete everything (" + cleanup.getMessage() + "); run 'kvlab ec2 down "
              + config.source() + "' to finish");
        }
      }
    }
  }

  private Ec2Cluster create(ClusterConfig config, Ec2Spec spec, String callerCidr, AddressMapper mapper,
      List<String> regions, Map<String, String> amis, Instant expires) {
    String cluster = config.name();
    String owner = spec.owner();
    String name = resourceName(cluster, owner);
    List<Tag> tags = List.of(tag(TAG_CLUSTER, cluster), tag(TAG_OWNER, owner), tag(TAG_EXPIRES, expires.toString()));
    KeyPair key = SshKeys.generate();
    Path keyFile = keyFile(cluster);
    try {
      SshKeys.writePrivateKey(key, keyFile);
    } catch (IOException e) {
      throw new Ec2Error("cannot write the cluster's private key to " + keyFile + ": " + e.getMessage(),
          "make " + options.stateRoot() + " writable, or run from a directory where it is", e);
    }
    listener.created(new Ec2Resource(Ec2Resource.Kind.KEY_FILE, "", keyFile.toString(), "mode 0600"));
    deleteKnownHosts(cluster, null);
    String publicKey = SshKeys.openSshPublicKey(key, name);
    int[] ports = portRange(config);
    Map<String, String> groups = new LinkedHashMap<>();
    for (String region : regions) {
      Ec2Client ec2 = clients.region(region);
      aws("import the key pair", region, () -> ec2.importKeyPair(b -> b.keyName(name)
          .publicKeyMaterial(SdkBytes.fromUtf8String(publicKey))
          .tagSpecifications(spec(ResourceType.KEY_PAIR, tags, name))));
      listener.created(new Ec2Resource(Ec2Resource.Kind.KEY_PAIR, region, name, "RSA " + SshKeys.BITS));
      CreateSecurityGroupResponse sg = aws("create the security group", region, () -> ec2.createSecurityGroup(b -> b
          .groupName(name)
          .description(Ingress.description("kvlab cluster " + cluster + " of " + owner + ": only its own instances and its caller"))
          .tagSpecifications(spec(ResourceType.SECURITY_GROUP, tags, name))));
      String groupId = sg.groupId();
      groups.put(region, groupId);
      listener.created(new Ec2Resource(Ec2Resource.Kind.SECURITY_GROUP, region, groupId, name));
      List<Ingress.Rule> base = Ingress.base(groupId, callerCidr, SSH_PORT, ports);
      List<IpPermission> permissions = base.stream().map(Ingress.Rule::permission).toList();
      retryNotFound("allow the cluster and the caller in", region,
          () -> ec2.authorizeSecurityGroupIngress(b -> b.groupId(groupId).ipPermissions(permissions)));
      listener.created(new Ec2Resource(Ec2Resource.Kind.INGRESS_RULE, region, groupId,
          String.join("; ", base.stream().map(Ingress.Rule::toString).toList())));
    }
    String userData = UserData.encoded(cluster, owner, spec.expiry(), expires);
    Map<String, List<String>> idsByRegion = new LinkedHashMap<>();
    for (int d = 0; d < config.topology().datacenters(); d++) {
      String region = spec.region(d);
      List<String> ids = runInstances(spec, region, d, amis.get(region), groups.get(region), name, tags, userData);
      idsByRegion.computeIfAbsent(region, r -> new ArrayList<>()).addAll(ids);
    }
    Map<String, List<Instance>> running = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : idsByRegion.entrySet()) {
      String region = e.getKey();
      listener.progress("waiting for " + e.getValue().size() + " instance(s) in " + region + " to run");
      running.put(region, waitUntil(region, e.getValue(), true));
    }
    // Every peer, client and this machine dial an instance at its public address; such traffic comes from the
    // sender's public address, which the group reference does not match (Ingress): admit each one, in every region.
    List<String> publicIps = new ArrayList<>();
    running.forEach((region, list) -> list.forEach(i -> {
      if (i.publicIpAddress() == null) {
        throw new Ec2Error("instance " + i.instanceId() + " in " + region + " has no public IPv4 address, so neither"
            + " this machine nor the other regions can reach it", "give the default VPC's subnets in " + region
            + " an internet gateway (or recreate the default VPC: 'aws ec2 create-default-vpc --region " + region + "')");
      }
      publicIps.add(i.publicIpAddress());
    }));
    List<Ingress.Rule> peers = Ingress.instances(publicIps, ports);
    List<IpPermission> peerPermissions = peers.stream().map(Ingress.Rule::permission).toList();
    for (String region : regions) {
      String groupId = groups.get(region);
      aws("allow the cluster's instances in by their public addresses", region, () -> clients.region(region)
          .authorizeSecurityGroupIngress(b -> b.groupId(groupId).ipPermissions(peerPermissions)));
      listener.created(new Ec2Resource(Ec2Resource.Kind.INGRESS_RULE, region, groupId,
          "TCP " + ports[0] + "-" + ports[1] + " from " + String.join(", ", publicIps.stream().map(ip -> ip + "/32").toList())));
    }
    List<Ec2Host> hosts = new ArrayList<>();
    BigDecimal total = BigDecimal.ZERO;
    boolean priced = true;
    List<Ec2Instance> all = new ArrayList<>();
    running.forEach((region, list) -> list.forEach(i -> all.add(describe(region, i))));
    all.sort(Comparator.comparingInt(Ec2Instance::datacenter).thenComparing(Ec2Instance::id));
    int[] index = new int[config.topology().datacenters()];
    for (Ec2Instance i : all) {
      String host = mapper.reachableHost(i);
      hosts.add(new Ec2Host(i.datacenter(), index[i.datacenter()]++, host, SSH_PORT, spec.user(), keyFile, i));
      if (i.usdPerHour().isPresent()) {
        total = total.add(i.usdPerHour().get());
      } else {
        priced = false;
      }
    }
    listener.progress(hosts.size() + " instance(s) running for " + cluster + "; they terminate themselves at " + expires);
    return new Ec2Cluster(cluster, owner, expires, keyFile, hosts, priced ? Optional.of(total) : Optional.empty());
  }

  private List<String> runInstances(Ec2Spec spec, String region, int datacenter, String ami, String groupId, String keyName,
      List<Tag> tags, String userData) {
    List<Tag> instanceTags = new ArrayList<>(tags);
    instanceTags.add(tag(TAG_DATACENTER, Integer.toString(datacenter)));
    RunInstancesRequest.Builder request = RunInstancesRequest.builder()
        .imageId(ami)
        .instanceType(spec.instanceType())
        .minCount(spec.instancesPerDatacenter())
        .maxCount(spec.instancesPerDatacenter())
        .keyName(keyName)
        // a public address asked for explicitly: a subnet whose default is "none" would otherwise start instances
        // reachable only at their private address
        .networkInterfaces(InstanceNetworkInterfaceSpecification.builder().deviceIndex(0).associatePublicIpAddress(true)
            .groups(groupId).deleteOnTermination(true).build())
        .userData(userData)
        .instanceInitiatedShutdownBehavior(ShutdownBehavior.TERMINATE.toString())
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.INSTANCE)
            .tags(withName(instanceTags, keyName + "-dc" + datacenter)).build());
    if (BURSTABLE_TYPE.matcher(spec.instanceType()).matches()) {
      // T3/T3a/T4g start in Unlimited mode: a saturating benchmark would pay for surplus credits (several times the
      // listed price). Standard: the CPU falls back to its baseline once the credits are spent, at the listed price.
      request.creditSpecification(c -> c.cpuCredits("standard"));
    }
    String what = "start " + spec.instancesPerDatacenter() + " instance(s) for datacenter " + datacenter;
    List<Instance> started = null;
    boolean spot = spec.spot() != null;
    if (spot) {
      RunInstancesRequest spotRequest = request.copy().instanceMarketOptions(m -> m.marketType(MarketType.SPOT)
          .spotOptions(s -> s.spotInstanceType(SpotInstanceType.ONE_TIME)
              .instanceInterruptionBehavior(InstanceInterruptionBehavior.TERMINATE))).build();
      long deadline = options.sleeper().nanoTime() + spec.spot().maxWait().toNanos();
      while (started == null) {
        try {
          started = retryNotFound(what, region, () -> clients.region(region).runInstances(spotRequest)).instances();
        } catch (Ec2Error e) {
          String code = e.getCause() instanceof AwsServiceException a && a.awsErrorDetails() != null
              ? String.valueOf(a.awsErrorDetails().errorCode()) : "";
          if (code.equals("MaxSpotInstanceCountExceeded") && spec.spot().fallbackOnDemand()) {
            listener.progress("the spot quota of " + region + " is used up (MaxSpotInstanceCountExceeded): starting"
                + " on-demand instances");
            spot = false;
            break;
          }
          if (!SPOT_CAPACITY_CODES.contains(code)) {
            throw e;
          }
          if (options.sleeper().nanoTime() - deadline >= 0) {
            if (!spec.spot().fallbackOnDemand()) {
              throw new Ec2Error("no spot " + spec.instanceType() + " capacity in " + region + " within "
                  + human(spec.spot().maxWait()) + " (" + code + ")", "try again later, another instance type or"
                  + " region, a longer spot.maxWait, or 'spot: { then: on-demand }'");
            }
            listener.progress("no spot capacity in " + region + " after " + human(spec.spot().maxWait())
                + " (" + code + "): starting on-demand instances");
            spot = false;
            break;
          }
          listener.progress("no spot capacity in " + region + " yet (" + code + "); retrying");
          sleep(options.pollInterval());
        }
      }
    }
    if (started == null) {
      RunInstancesRequest onDemand = request.build();
      started = retryNotFound(what, region, () -> clients.region(region).runInstances(onDemand)).instances();
    }
    List<String> ids = new ArrayList<>();
    for (Instance i : started) {
      ids.add(i.instanceId());
      listener.created(new Ec2Resource(Ec2Resource.Kind.INSTANCE, region, i.instanceId(),
          "datacenter " + datacenter + ", " + spec.instanceType() + ", " + (spot ? "spot" : "on-demand")));
    }
    return ids;
  }

  private static List<Tag> withName(List<Tag> tags, String name) {
    List<Tag> out = new ArrayList<>(tags);
    out.add(tag("Name", name));
    return out;
  }

  private String resolveAmi(ClusterConfig config, Ec2Spec spec, String region) {
    Ec2Client ec2 = clients.region(region);
    if (spec.lookup() == null) {
      String id = spec.ami().get(region);
      DescribeImagesResponse r;
      try {
        r = ec2.describeImages(b -> b.imageIds(id));
      } catch (AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
        if (!code.startsWith("InvalidAMIID")) {
          throw explain("look up AMI " + id, region, e);
        }
        r = null;
      } catch (SdkClientException e) {
        throw unreachable("look up AMI " + id, region, e);
      }
      if (r == null || r.images().isEmpty()) {
        throw new Ec2Error("AMI " + id + " does not exist in region " + region + " (AMI ids differ per region: the same"
            + " image has another id in each region)", "in " + config.source() + ", give " + region + "'s id of the image"
            + " under ec2.ami." + region + ", or replace 'ami' by 'amiLookup: { owner: ..., name: ... }'");
      }
      return id;
    }
    String arch = Ec2Spec.ARM_TYPE.matcher(spec.instanceType()).matches() ? "arm64" : "x86_64";
    DescribeImagesResponse r = aws("look up the AMI", region, () -> ec2.describeImages(b -> b
        .owners(spec.lookup().owner())
        .filters(filter("name", spec.lookup().name()), filter("state", "available"), filter("architecture", arch))));
    Optional<Image> newest = r.images().stream()
        .max(Comparator.comparing(i -> i.creationDate() == null ? "" : i.creationDate()));
    if (newest.isEmpty()) {
      throw new Ec2Error("region " + region + " has no " + arch + " AMI named '" + spec.lookup().name() + "' owned by "
          + spec.lookup().owner(), "check the name pattern and owner in ec2.amiLookup of " + config.source()
          + " (e.g. with 'aws ec2 describe-images --region " + region + " --owners " + spec.lookup().owner()
          + " --filters Name=name,Values=\"" + spec.lookup().name() + "\"'), or give the AMI id per region under ec2.ami");
    }
    return newest.get().imageId();
  }

  // ---------------------------------------------------------------------------------------------
  // list

  /**
   * The live (not terminated) kvlab instances in {@code regions}: of {@code cluster} if given, else of every kvlab
   * cluster. Sorted by region, cluster, datacenter.
   */
  public List<Ec2Instance> list(Collection<String> regions, Optional<String> cluster) {
    checkCredentials();
    List<Ec2Instance> out = new ArrayList<>();
    for (String region : new LinkedHashSet<>(regions)) {
      List<Filter> filters = new ArrayList<>();
      filters.add(cluster.map(c -> filter("tag:" + TAG_CLUSTER, c)).orElse(filter("tag-key", TAG_CLUSTER)));
      filters.add(Filter.builder().name("instance-state-name").values(LIVE_STATES).build());
      for (Instance i : instances(region, filters)) {
        out.add(describe(region, i));
      }
    }
    out.sort(Comparator.comparing(Ec2Instance::region).thenComparing(Ec2Instance::cluster)
        .thenComparingInt(Ec2Instance::datacenter).thenComparing(Ec2Instance::id));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // down

  /**
   * Deletes, in every region of {@code regions}, exactly the resources tagged with {@code cluster} and {@code owner}:
   * first the instances (waiting until they are terminated), then the security groups, then the key pairs; then the
   * local key file. Returns what it deleted. Untagged resources and other clusters' are never touched.
   */
  public List<Ec2Resource> down(String cluster, String owner, Collection<String> regions) {
    checkCredentials();
    List<Ec2Resource> deleted = new ArrayList<>();
    List<Filter> byTags = List.of(filter("tag:" + TAG_CLUSTER, cluster), filter("tag:" + TAG_OWNER, owner));
    for (String region : new LinkedHashSet<>(regions)) {
      Ec2Client ec2 = clients.region(region);
      List<Filter> live = new ArrayList<>(byTags);
      live.add(Filter.builder().name("instance-state-name").values(LIVE_STATES).build());
      List<String> ids = instances(region, live).stream().map(Instance::instanceId).toList();
      if (!ids.isEmpty()) {
        listener.progress("terminating " + ids.size() + " instance(s) in " + region);
        aws("terminate the instances", region, () -> ec2.terminateInstances(b -> b.instanceIds(ids)));
        waitUntil(region, ids, false);
        for (String id : ids) {
          Ec2Resource r = new Ec2Resource(Ec2Resource.Kind.INSTANCE, region, id, "terminated");
          deleted.add(r);
          listener.deleted(r);
        }
      }
      List<SecurityGroup> groups = aws("list the security groups", region,
          () -> ec2.describeSecurityGroups(b -> b.filters(byTags))).securityGroups();
      for (SecurityGroup g : groups) {
        deleteGroup(region, g);
        Ec2Resource r = new Ec2Resource(Ec2Resource.Kind.SECURITY_GROUP, region, g.groupId(), g.groupName());
        deleted.add(r);
        listener.deleted(r);
      }
      List<KeyPairInfo> keys = aws("list the key pairs", region, () -> ec2.describeKeyPairs(b -> b.filters(byTags))).keyPairs();
      for (KeyPairInfo k : keys) {
        aws("delete key pair " + k.keyName(), region, () -> ec2.deleteKeyPair(b -> b.keyName(k.keyName())));
        Ec2Resource r = new Ec2Resource(Ec2Resource.Kind.KEY_PAIR, region, k.keyName(), k.keyPairId());
        deleted.add(r);
        listener.deleted(r);
      }
    }
    Path keyFile = keyFile(cluster);
    try {
      if (Files.deleteIfExists(keyFile)) {
        Ec2Resource r = new Ec2Resource(Ec2Resource.Kind.KEY_FILE, "", keyFile.toString(), "");
        deleted.add(r);
        listener.deleted(r);
      }
    } catch (IOException e) {
      listener.progress("could not delete " + keyFile + ": " + e.getMessage());
    }
    deleteKnownHosts(cluster, deleted);
    return deleted;
  }

  /** Deletes the cluster's known_hosts (its instances' host keys; their addresses go to other instances later). */
  private void deleteKnownHosts(String cluster, List<Ec2Resource> deleted) {
    Path file = knownHostsFile(cluster);
    try {
      if (Files.deleteIfExists(file) && deleted != null) {
        Ec2Resource r = new Ec2Resource(Ec2Resource.Kind.KNOWN_HOSTS, "", file.toString(), "");
        deleted.add(r);
        listener.deleted(r);
      }
    } catch (IOException e) {
      listener.progress("could not delete " + file + ": " + e.getMessage());
    }
  }

  /** A group can be deleted only once no network interface uses it; terminated instances release theirs late. */
  private void deleteGroup(String region, SecurityGroup g) {
    long deadline = options.sleeper().nanoTime() + options.waitTimeout().toNanos();
    while (true) {
      try {
        clients.region(region).deleteSecurityGroup(b -> b.groupId(g.groupId()));
        return;
      } catch (AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
        if (!code.equals("DependencyViolation") || options.sleeper().nanoTime() - deadline >= 0) {
          throw explain("delete security group " + g.groupId(), region, e);
        }
        listener.progress("security group " + g.groupId() + " in " + region + " is still in use; retrying");
        sleep(options.pollInterval());
      } catch (SdkClientException e) {
        throw unreachable("delete security group " + g.groupId(), region, e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // helpers

  /** Fails with the cause and the fix when the default chain (or the given provider) has no credentials. */
  public void checkCredentials() {
    try {
      clients.credentials().resolveCredentials();
    } catch (RuntimeException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
      throw new Ec2Error("no AWS credentials found (" + (why.length() > 300 ? why.substring(0, 300) + "..." : why) + ")",
          "give them the AWS SDK's default way: run 'aws configure' (or 'aws sso login' with AWS_PROFILE set), or export"
              + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones); kvlab reads them"
              + " and never stores them", e);
    }
  }

  private String callerCidr(CallerAddress caller) {
    String raw;
    try {
      raw = caller.cidr();
    } catch (IOException e) {
      throw new Ec2Error("cannot find this machine's public address (" + e.getMessage() + "), which the security"
          + " groups must let in", "give it with --caller-cidr A.B.C.D/32 (your public IPv4 address)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Ec2Error("interrupted while finding this machine's public address", "run the command again");
    }
    String cidr = raw == null ? "" : raw.strip();
    var m = IPV4_CIDR.matcher(cidr);
    boolean valid = m.matches();
    for (int g = 1; valid && g <= 4; g++) {
      valid = Integer.parseInt(m.group(g)) <= 255;
    }
    if (valid && m.group(6) != null) {
      int bits = Integer.parseInt(m.group(6));
      valid = bits >= 16 && bits <= 32;
    }
    if (!valid) {
      throw new Ec2Error(UserText.quoted(cidr) + " is not an IPv4 address or a CIDR block of /16 to /32 (the caller's address,"
          + " which the security groups let in)", "give your public IPv4 address, e.g. --caller-cidr 203.0.113.7/32");
    }
    return m.group(5) == null ? cidr + "/32" : cidr;
  }

  /** Descriptions of what carries the cluster's and owner's tags in {@code regions} (what {@link #down} deletes). */
  public List<String> tagged(String cluster, String owner, Collection<String> regions) {
    checkCredentials();
    List<String> out = new ArrayList<>();
    for (String region : new LinkedHashSet<>(regions)) {
      out.addAll(tagged(region, cluster, owner));
    }
    return out;
  }

  private List<String> tagged(String region, String cluster, String owner) {
    Ec2Client ec2 = clients.region(region);
    List<Filter> byTags = List.of(filter("tag:" + TAG_CLUSTER, cluster), filter("tag:" + TAG_OWNER, owner));
    List<Filter> live = new ArrayList<>(byTags);
    live.add(Filter.builder().name("instance-state-name").values(LIVE_STATES).build());
    List<String> out = new ArrayList<>();
    instances(region, live).forEach(i -> out.add("instance " + i.instanceId() + " in " + region));
    aws("list the security groups", region, () -> ec2.describeSecurityGroups(b -> b.filters(byTags))).securityGroups()
        .forEach(g -> out.add("security group " + g.groupId() + " in " + region));
    aws("list the key pairs", region, () -> ec2.describeKeyPairs(b -> b.filters(byTags))).keyPairs()
        .forEach(k -> out.add("key pair " + k.keyName() + " in " + region));
    return out;
  }

  private List<Instance> instances(String region, List<Filter> filters) {
    List<Instance> out = new ArrayList<>();
    DescribeInstancesRequest request = DescribeInstancesRequest.builder().filters(filters).build();
    aws("list the instances", region, () -> {
      for (DescribeInstancesResponse page : clients.region(region).describeInstancesPaginator(request)) {
        for (Reservation r : page.reservations()) {
          out.addAll(r.instances());
        }
      }
      return null;
    });
    return out;
  }

  /**
   * Polls until every instance of {@code ids} runs (returns them) or is terminated (returns nothing). Waiting to
   * run fails as soon as one is shutting down, stopped or terminated, with EC2's reason (its StateReason); waiting
   * for termination goes on through pending and running. Instances not visible yet (InvalidInstanceID.NotFound
   * right after RunInstances) are waited for; when waiting to terminate, an instance EC2 no longer knows is gone.
   */
  private List<Instance> waitUntil(String region, List<String> ids, boolean running) {
    long deadline = options.sleeper().nanoTime() + options.waitTimeout().toNanos();
    String goal = running ? "run" : "terminate";
    DescribeInstancesRequest request = DescribeInstancesRequest.builder().instanceIds(ids).build();
    String last = "";
    while (true) {
      List<Instance> now = null;
      try {
        List<Instance> seen = new ArrayList<>();
        for (DescribeInstancesResponse page : clients.region(region).describeInstancesPaginator(request)) {
          page.reservations().forEach(res -> seen.addAll(res.instances()));
        }
        now = seen;
      } catch (AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
        if (!code.equals("InvalidInstanceID.NotFound")) {
          throw explain("wait for " + ids.size() + " instance(s) to " + goal, region, e);
        }
        if (!running) {
          return List.of();
        }
        last = "not visible yet (InvalidInstanceID.NotFound)";
      } catch (SdkClientException e) {
        throw unreachable("wait for " + ids.size() + " instance(s) to " + goal, region, e);
      }
      if (now != null) {
        Map<String, Long> states = new java.util.TreeMap<>();
        now.forEach(i -> states.merge(state(i), 1L, Long::sum));
        last = states.toString();
        if (running) {
          for (Instance i : now) {
            if (NOT_RUNNING.contains(state(i))) {
              throw new Ec2Error("instance " + i.instanceId() + " in " + region + " did not run: it is " + state(i)
                  + reason(i), notRunningFix(i, region));
            }
          }
          if (now.size() == ids.size() && now.stream().allMatch(i -> state(i).equals("running"))) {
            return now;
          }
        } else if (now.stream().allMatch(i -> state(i).equals("terminated"))) {
          return List.of();
        }
      }
      if (options.sleeper().nanoTime() - deadline >= 0) {
        throw new Ec2Error("instances " + ids + " in " + region + " did not " + goal + " within "
            + human(options.waitTimeout()) + " (states: " + last + ")", running
            ? "look at them in the EC2 console (their state reason), then run 'kvlab ec2 down <cluster.yaml>'"
            : "run 'kvlab ec2 down <cluster.yaml>' again, or terminate them in the EC2 console");
      }
      sleep(options.pollInterval());
    }
  }

  private static String state(Instance i) {
    return i.state() == null ? "unknown" : i.state().nameAsString();
  }

  private static String reason(Instance i) {
    if (i.stateReason() == null) {
      return i.stateTransitionReason() == null || i.stateTransitionReason().isBlank() ? ""
          : " (" + i.stateTransitionReason() + ")";
    }
    return " (" + i.stateReason().code() + ": " + i.stateReason().message() + ")";
  }

  private static String notRunningFix(Instance i, String region) {
    String code = i.stateReason() == null ? "" : String.valueOf(i.stateReason().code());
    if (code.contains("InsufficientInstanceCapacity")) {
      return "AWS had no capacity for this type there: try again later, or another instance type or region";
    }
    if (code.contains("VolumeLimitExceeded") || code.contains("InstanceLimitExceeded")) {
      return "ask for a higher EC2 quota in " + region + " (Service Quotas console), or start fewer instances";
    }
    if (code.contains("InternalError") || code.contains("InvalidSnapshot")) {
      return "the AMI's root volume could not be made (an encrypted snapshot without kms permissions?): pick another"
          + " AMI, or grant the KMS key";
    }
    return "see EC2's reason above; 'kvlab ec2 down <cluster.yaml>' deletes what is left";
  }

  private Ec2Instance describe(String region, Instance i) {
    Map<String, String> tags = new LinkedHashMap<>();
    i.tags().forEach(t -> tags.put(t.key(), t.value()));
    int dc;
    try {
      dc = Integer.parseInt(tags.getOrDefault(TAG_DATACENTER, "-1"));
    } catch (NumberFormatException e) {
      dc = -1;
    }
    Instant expires;
    try {
      expires = tags.containsKey(TAG_EXPIRES) ? Instant.parse(tags.get(TAG_EXPIRES)) : null;
    } catch (DateTimeParseException e) {
      expires = null;
    }
    String type = i.instanceTypeAsString();
    return new Ec2Instance(region, i.instanceId(), tags.getOrDefault(TAG_CLUSTER, ""), tags.getOrDefault(TAG_OWNER, ""), dc,
        type, i.state() == null ? "unknown" : i.state().nameAsString(),
        i.instanceLifecycle() == InstanceLifecycleType.SPOT, i.launchTime(), expires, i.publicIpAddress(),
        i.privateIpAddress(), prices.usdPerHour(region, type)
            .map(p -> i.publicIpAddress() == null ? p : p.add(PriceTable.PUBLIC_IPV4_USD_PER_HOUR)));
  }

  static String human(Duration d) {
    return d.toMillis() < 1000 ? d.toMillis() + " ms" : d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }

  private static List<String> distinctRegions(Ec2Spec spec) {
    return spec.regionPerDatacenter() ? spec.regions() : List.of(spec.regions().get(0));
  }

  private static int[] portRange(ClusterConfig config) {
    int lo = config.servers().stream().mapToInt(ServerSpec::port).min().orElseThrow();
    int hi = config.servers().stream().mapToInt(ServerSpec::port).max().orElseThrow();
    return new int[] {lo, hi};
  }

  private static TagSpecification spec(ResourceType type, List<Tag> tags, String name) {
    return TagSpecification.builder().resourceType(type).tags(withName(tags, name)).build();
  }

  private static Tag tag(String key, String value) {
    return Tag.builder().key(key).value(value).build();
  }

  private static Filter filter(String name, String value) {
    return Filter.builder().name(name).values(value).build();
  }

  private void sleep(Duration d) {
    try {
      options.sleeper().sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Ec2Error("interrupted", "run 'kvlab ec2 list' to see what was created and 'kvlab ec2 down' to delete it");
    }
  }

  /**
   * {@link #aws}, retried while AWS answers with a NotFound for a resource created moments ago (EC2 is eventually
   * consistent: a new group or key pair may not be visible to the next call yet), for up to {@link #CONSISTENCY_WAIT}.
   */
  private <T> T retryNotFound(String what, String region, Supplier<T> call) {
    long deadline = options.sleeper().nanoTime() + CONSISTENCY_WAIT.toNanos();
    Duration pause = options.pollInterval();
    while (true) {
      try {
        return call.get();
      } catch (AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
        if (!NOT_FOUND_YET.contains(code) || options.sleeper().nanoTime() - deadline >= 0) {
          throw explain(what, region, e);
        }
        listener.progress("cannot " + what + " in " + region + " yet (" + code + ": just created); retrying");
        sleep(pause);
        pause = pause.multipliedBy(2).compareTo(Duration.ofSeconds(20)) > 0 ? Duration.ofSeconds(20) : pause.multipliedBy(2);
      } catch (SdkClientException e) {
        throw unreachable(what, region, e);
      }
    }
  }

  private <T> T aws(String what, String region, Supplier<T> call) {
    try {
      return call.get();
    } catch (AwsServiceException e) {
      throw explain(what, region, e);
    } catch (SdkClientException e) {
      throw unreachable(what, region, e);
    }
  }

  private Ec2Error unreachable(String what, String region, SdkClientException e) {
    String where = clients.endpoint() != null ? "the EC2 endpoint " + clients.endpoint() : "EC2 in region " + region;
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
    if (why.contains("credentials")) {
      return new Ec2Error("no usable AWS credentials (" + why + ")", "run 'aws configure', or export AWS_ACCESS_KEY_ID and"
          + " AWS_SECRET_ACCESS_KEY; kvlab never stores them", e);
    }
    return new Ec2Error("cannot " + what + ": " + where + " did not answer (" + why + ")",
        clients.endpoint() != null ? "check that the endpoint runs and the --endpoint URL is right"
            : "check this machine's internet connection and proxy settings, and that '" + region + "' is a region", e);
  }

  private static Ec2Error explain(String what, String region, AwsServiceException e) {
    String code = e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
    String message = e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null ? e.getMessage()
        : e.awsErrorDetails().errorMessage();
    String cause = "cannot " + what + " in " + region + ": " + code + ": " + message;
    String fix = switch (code) {
      case "AuthFailure", "InvalidClientTokenId", "SignatureDoesNotMatch", "UnrecognizedClientException" ->
          "AWS rejected the credentials: check them ('aws sts get-caller-identity'), renew temporary ones"
              + " ('aws sso login'), or check this machine's clock";
      case "UnauthorizedOperation", "AccessDenied", "AccessDeniedException" ->
          "give the credentials' IAM user or role the EC2 permissions kvlab uses (docs/ec2.md lists them)";
      case "OptInRequired" -> "enable region " + region + " for your account (AWS console, Account, AWS Regions), or pick another";
      case "VPCIdNotSpecified", "VPCResourceNotSpecified", "InvalidVpcID.NotFound" ->
          "the region has no default VPC: create one with 'aws ec2 create-default-vpc --region " + region + "'";
      case "InstanceLimitExceeded", "VcpuLimitExceeded" ->
          "ask for a higher 'Running On-Demand Standard instances' vCPU quota in " + region + " (Service Quotas console,"
              + " Amazon EC2; new accounts start low, docs/ec2.md), or start fewer or smaller instances";
      case "MaxSpotInstanceCountExceeded" ->
          "ask for a higher 'All Standard Spot Instance Requests' vCPU quota in " + region + " (Service Quotas console,"
              + " Amazon EC2), start fewer instances, or use 'spot: { then: on-demand }'";
      case "AuthFailure.ServiceLinkedRoleCreationNotPermitted" ->
          "the first spot instance of an account needs the service-linked role AWSServiceRoleForEC2Spot: create it once"
              + " with 'aws iam create-service-linked-role --aws-service-name spot.amazonaws.com', or give the credentials"
              + " iam:CreateServiceLinkedRole (docs/ec2.md lists the permissions), or drop 'spot:'";
      case "Unsupported", "InvalidInstanceType" ->
          "this instance type is not offered there: pick another ec2.instanceType or region";
      case "InsufficientInstanceCapacity" -> "AWS has no capacity for this type there right now: try again later, or"
          + " another instance type or region";
      default -> "see AWS's message above; if resources were created, 'kvlab ec2 down <cluster.yaml>' deletes them";
    };
    return new Ec2Error(cause, fix, e);
  }
}
