package org.kvlab.cluster.ec2;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.kvlab.api.Params;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.config.UserText;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;

/**
 * The {@code ec2:} section of a cluster file (format: {@code docs/ec2.md}): what {@code kvlab ec2 up} creates
 * for the cluster. Read with the framework's {@link YamlReader}, so every problem is reported at
 * file:line:column with the cause and the fix.
 *
 * @param instanceType EC2 instance type of every instance, e.g. {@code t3.small}
 * @param regions the regions, in datacenter order when {@code regionPerDatacenter}
 * @param regionPerDatacenter datacenter {@code d} runs in {@code regions[d]}; otherwise one region holds all
 * @param ami AMI id per region (empty when {@code lookup} is used)
 * @param lookup the AMI lookup (owner and name pattern, newest wins) when no ids are given; null otherwise
 * @param instancesPerDatacenter instances started in each datacenter (default: the cluster's partitions)
 * @param user the SSH user of the AMI (Debian: admin, Ubuntu: ubuntu, Amazon Linux: ec2-user)
 * @param spot spot instances, or null for on-demand
 * @param expiry the instances' lifetime: they shut themselves down (and so terminate) after it
 * @param owner the owner tag (default: the local user name)
 */
public record Ec2Spec(String instanceType, List<String> regions, boolean regionPerDatacenter, Map<String, String> ami,
    AmiLookup lookup, int instancesPerDatacenter, String user, Spot spot, Duration expiry, String owner) {

  /** Debian 12 (bookworm) amd64, published by Debian's AWS account; its SSH user is {@code admin}. */
  public static final AmiLookup DEFAULT_LOOKUP = new AmiLookup("136693071363", "debian-12-amd64-*");
  /** The same for Graviton (arm64) instance types. */
  public static final AmiLookup DEFAULT_LOOKUP_ARM = new AmiLookup("136693071363", "debian-12-arm64-*");
  /** Graviton instance types (t4g, m7g, c6gn, ...): arm64 images. */
  static final Pattern ARM_TYPE = Pattern.compile("[a-z]+\\d+g[a-z]*\\..*");
  public static final String DEFAULT_USER = "admin";
  public static final String DEFAULT_INSTANCE_TYPE = "t3.small";
  public static final int EXPIRY_HOURS_DEFAULT = 4;
  public static final int EXPIRY_HOURS_MAX = 168;

  public Ec2Spec {
    regions = List.copyOf(regions);
    ami = Map.copyOf(ami);
    if (regions.isEmpty() || (lookup == null) == ami.isEmpty() || instancesPerDatacenter < 1 || expiry.isNegative()
        || expiry.isZero()) {
      throw new IllegalArgumentException("inconsistent ec2 spec");
    }
  }

  /** Newest image owned by {@code owner} whose name matches {@code name} (EC2 wildcards {@code *} and {@code ?}). */
  public record AmiLookup(String owner, String name) {}

  /** Spot instances: wait at most {@code maxWait} for them, then start on-demand ones or fail. */
  public record Spot(Duration maxWait, boolean fallbackOnDemand) {}

  /** The region of datacenter {@code d}. */
  public String region(int datacenter) {
    return regionPerDatacenter ? regions.get(datacenter) : regions.get(0);
  }

  /**
   * The {@code ec2:} section of {@code file} (already loaded as {@code config}); errors name the file, line and
   * column. Throws if the file has no {@code ec2:} section.
   */
  public static Ec2Spec load(Path file, ClusterConfig config) throws ConfigException {
    String yaml = YamlReader.readText(file, "cluster file");
    return parse(yaml, file.toString(), config);
  }

  public static Ec2Spec parse(String yaml, String source, ClusterConfig config) throws ConfigException {
    Reader r = new Reader(source);
    YamlNode root = r.readTree(YamlReader.stripBom(yaml));
    YamlNode section = root.kind == Kind.MAPPING ? root.get("ec2") : null;
    if (section == null || section.kind == Kind.NULL) {
      throw new ConfigException(source, root.line, root.column, "the cluster file has no 'ec2:' section",
          "add one, e.g.\nec2:\n  instanceType: t3.small\n  regions: [us-east-1, eu-west-1]\n  regionPerDatacenter: true\n"
              + "(see docs/ec2.md; examples/eventual-2dc-3p-ec2.yaml is a whole cluster file with one).");
    }
    return r.spec(section, config);
  }

  private static final class Reader extends YamlReader {
    private static final List<String> KEYS = List.of("instanceType", "regions", "regionPerDatacenter", "ami", "amiLookup",
        "instancesPerDatacenter", "user", "spot", "expiryHours", "owner");
    private static final Pattern REGION = Pattern.compile("[a-z]{2}(-gov)?-[a-z]+-\\d");
    private static final Pattern AMI_ID = Pattern.compile("ami-[0-9a-f]{8,17}");
    private static final Pattern INSTANCE_TYPE = Pattern.compile("[a-z][a-z0-9-]*\\.[a-z0-9]+");
    private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    Reader(String source) {
      super(source, "cluster file", "see docs/cluster-file.md and docs/ec2.md.",
          "keep one cluster per file: remove the '---' line and what follows.");
    }

    Ec2Spec spec(YamlNode ec2, ClusterConfig config) throws ConfigException {
      section(ec2, KEYS);
      String type = DEFAULT_INSTANCE_TYPE;
      YamlNode t = ec2.get("instanceType");
      if (t != null) {
        type = text(t, "instanceType: t3.small");
        if (!INSTANCE_TYPE.matcher(type).matches()) {
          throw error(t, UserText.quoted(type) + " is not an EC2 instance type", "write a type like 't3.small' or 'c5.xlarge'.");
        }
      }
      YamlNode regionsNode = require(ec2, "regions");
      List<String> regions = new ArrayList<>();
      if (regionsNode.kind == Kind.LIST) {
        for (YamlNode item : regionsNode.items) {
          regions.add(region(item, regions));
        }
      } else {
        regions.add(region(regionsNode, regions));
      }
      if (regions.isEmpty()) {
        throw error(regionsNode, "lists no region", "name at least one, e.g. 'regions: [us-east-1]'.");
      }
      boolean perDc = false;
      YamlNode p = ec2.get("regionPerDatacenter");
      if (p != null) {
        perDc = bool(p, "regionPerDatacenter: true");
      }
      int dcs = config.topology().datacenters();
      if (perDc && regions.size() != dcs) {
        throw error(regionsNode, "names " + regions.size() + " region(s) but the cluster has " + dcs
            + " datacenters and regionPerDatacenter is true", "list exactly one region per datacenter, in datacenter order.");
      }
      if (!perDc && regions.size() != 1) {
        throw error(regionsNode, "names " + regions.size() + " regions but regionPerDatacenter is not true",
            "either add 'regionPerDatacenter: true' (datacenter d runs in the d-th region) or keep one region.");
      }
      Map<String, String> ami = new LinkedHashMap<>();
      AmiLookup lookup = null;
      YamlNode amiNode = ec2.get("ami");
      YamlNode lookupNode = ec2.get("amiLookup");
      if (amiNode != null && amiNode.kind != Kind.NULL && lookupNode != null && lookupNode.kind != Kind.NULL) {
        throw errorAtKey(lookupNode, "'ami' (line " + amiNode.keyLine + ") and 'amiLookup' are both given",
            "keep one: AMI ids per region, or a lookup by owner and name.");
      }
      if (amiNode != null && amiNode.kind != Kind.NULL) {
        if (amiNode.kind != Kind.MAPPING) {
          throw error(amiNode, "must map each region to its AMI id (AMI ids differ per region), but is "
              + amiNode.kind.description, "write e.g. 'ami: { us-east-1: ami-0123456789abcdef0 }'.");
        }
        for (Map.Entry<String, YamlNode> e : amiNode.entries.entrySet()) {
          if (!regions.contains(e.getKey())) {
            throw errorAtKey(e.getValue(), "region '" + e.getKey() + "' is not one of the regions " + regions,
                "remove it, or add the region to 'regions'.");
          }
          String id = text(e.getValue(), e.getKey() + ": ami-0123456789abcdef0");
          if (!AMI_ID.matcher(id).matches()) {
            throw error(e.getValue(), UserText.quoted(id) + " is not an AMI id", "write an id like 'ami-0123456789abcdef0'.");
          }
          ami.put(e.getKey(), id);
        }
        for (String region : regions) {
          if (!ami.containsKey(region)) {
            throw error(amiNode, "has no AMI for region " + region + " (AMI ids differ per region)",
                "add '" + region + ": ami-...' with that region's id of the image, or use 'amiLookup' instead.");
          }
        }
      } else if (lookupNode != null && lookupNode.kind != Kind.NULL) {
        section(lookupNode, List.of("owner", "name"));
        lookup = new AmiLookup(text(require(lookupNode, "owner"), "owner: \"136693071363\""),
            text(require(lookupNode, "name"), "name: debian-12-amd64-*"));
      } else {
        lookup = ARM_TYPE.matcher(type).matches() ? DEFAULT_LOOKUP_ARM : DEFAULT_LOOKUP;
      }
      int perDatacenter = config.topology().partitions() * config.topology().replicas();
      YamlNode n = ec2.get("instancesPerDatacenter");
      if (n != null) {
        perDatacenter = intIn(n, 1, 1000);
      }
      String user = DEFAULT_USER;
      YamlNode u = ec2.get("user");
      if (u != null) {
        user = text(u, "user: admin");
      }
      Spot spot = null;
      YamlNode s = ec2.get("spot");
      if (s != null && s.kind != Kind.NULL) {
        section(s, List.of("maxWait", "then"));
        Duration maxWait = Duration.ofMinutes(5);
        YamlNode w = s.get("maxWait");
        if (w != null) {
          String text = text(w, "maxWait: 5m");
          try {
            maxWait = Params.parseDuration(text, "maxWait");
          } catch (IllegalArgumentException e) {
            throw error(w, UserText.quoted(text) + " is not a duration", "write e.g. '5m', '90s' or '1h'.");
          }
          if (maxWait.isNegative() || maxWait.compareTo(Duration.ofHours(1)) > 0) {
            throw error(w, UserText.quoted(text) + " is out of range", "use a duration from 0s to 1h.");
          }
        }
        boolean fallback = true;
        YamlNode then = s.get("then");
        if (then != null) {
          String v = text(then, "then: on-demand");
          if (v.equals("on-demand")) {
            fallback = true;
          } else if (v.equals("fail")) {
            fallback = false;
          } else {
            throw error(then, UserText.quoted(v) + " is not what to do when no spot instance comes",
                "write 'then: on-demand' (start on-demand instances) or 'then: fail'.");
          }
        }
        spot = new Spot(maxWait, fallback);
      }
      int hours = EXPIRY_HOURS_DEFAULT;
      YamlNode e = ec2.get("expiryHours");
      if (e != null) {
        hours = intIn(e, 1, EXPIRY_HOURS_MAX);
      }
      String owner = System.getProperty("user.name", "unknown");
      YamlNode o = ec2.get("owner");
      if (o != null) {
        owner = text(o, "owner: alice");
        if (!OWNER.matcher(owner).matches()) {
          throw error(o, UserText.quoted(owner) + " is not a valid owner tag",
              "use up to 64 letters, digits, '.', '_', '@' and '-'.");
        }
      } else if (!OWNER.matcher(owner).matches()) {
        owner = owner.replaceAll("[^A-Za-z0-9._@-]", "_");
        owner = owner.isEmpty() ? "unknown" : owner.substring(0, Math.min(64, owner.length()));
      }
      return new Ec2Spec(type, regions, perDc, ami, lookup, perDatacenter, user, spot, Duration.ofHours(hours), owner);
    }

    private String region(YamlNode item, List<String> seen) throws ConfigException {
      String r = text(item, "regions: [us-east-1, eu-west-1]");
      if (!REGION.matcher(r).matches()) {
        throw error(item, UserText.quoted(r) + " is not an AWS region name", "write a region like 'us-east-1' or 'eu-west-1'.");
      }
      if (seen.contains(r)) {
        throw error(item, "region " + r + " is listed twice",
            "give each datacenter its own region (two datacenters in one region: use one region without regionPerDatacenter).");
      }
      return r;
    }

    private boolean bool(YamlNode v, String example) throws ConfigException {
      if (v.kind != Kind.BOOLEAN) {
        throw error(v, v.shown() + " is not true or false", "write '" + example + "'.");
      }
      String x = v.text.strip().toLowerCase(java.util.Locale.ROOT);
      return x.equals("true") || x.equals("yes") || x.equals("on");
    }
  }
}
