package org.kvlab.cluster.ec2;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.ec2.model.IpPermission;
import software.amazon.awssdk.services.ec2.model.IpRange;
import software.amazon.awssdk.services.ec2.model.UserIdGroupPair;

/**
 * The inbound rules of a cluster's security group in one region, as AWS applies them.
 *
 * <p>Peers, clients and this machine dial every instance at its public address (the host in the cluster file).
 * AWS matches a rule that references a security group against the sender's <em>private</em> address only; traffic
 * to a public address arrives from the sender's public address. So the group admits, on the cluster's ports, the
 * public address (/32) of every instance of the cluster, in every region, besides its own group (private traffic)
 * and the caller (SSH and the cluster's ports). Each address range and each group reference counts as one rule
 * against AWS's quota of {@value #MAX_RULES_PER_GROUP} inbound rules per group, which {@link #check} enforces before
 * anything is created.
 */
final class Ingress {
  /** AWS's default quota "Inbound or outbound rules per security group". */
  static final int MAX_RULES_PER_GROUP = 60;
  /**
   * The characters AWS allows in a rule description (the narrowest of its lists: that of a rule referencing a group
   * has no {@code &}), at most 255 of them.
   */
  static final Pattern DESCRIPTION = Pattern.compile("[a-zA-Z0-9 ._\\-:/()#,@\\[\\]+=;{}!$*]{0,255}");
  /** The rules besides the instances' addresses: the group itself, the caller's SSH, the caller's cluster ports. */
  static final int FIXED_RULES = 3;

  /** One rule: TCP {@code from}-{@code to} from a CIDR block or (when {@code groupId} is set) a security group. */
  record Rule(int from, int to, String cidr, String groupId, String description) {
    Rule {
      Ingress.description(description);
    }

    IpPermission permission() {
      IpPermission.Builder b = IpPermission.builder().ipProtocol("tcp").fromPort(from).toPort(to);
      return groupId != null
          ? b.userIdGroupPairs(UserIdGroupPair.builder().groupId(groupId).description(description).build()).build()
          : b.ipRanges(IpRange.builder().cidrIp(cidr).description(description).build()).build();
    }

    @Override
    public String toString() {
      return "TCP " + (from == to ? Integer.toString(from) : from + "-" + to) + " from "
          + (groupId != null ? "security group " + groupId : cidr) + " (" + description + ")";
    }
  }

  private Ingress() {}

  /** {@code text} if AWS accepts it as a rule description; else an {@link IllegalArgumentException}. */
  static String description(String text) {
    if (!DESCRIPTION.matcher(text).matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a rule description AWS accepts (letters, digits,"
          + " spaces and ._-:/()#,@[]+=;{}!$* only, at most 255)");
    }
    return text;
  }

  /** The rules a group gets when it is created: its own members, the caller's SSH and cluster ports. */
  static List<Rule> base(String groupId, String callerCidr, int sshPort, int[] ports) {
    return List.of(
        new Rule(0, 65535, null, groupId, "kvlab cluster instances by private address"),
        new Rule(sshPort, sshPort, callerCidr, null, "kvlab caller (SSH)"),
        new Rule(ports[0], ports[1], callerCidr, null, "kvlab caller (cluster ports)"));
  }

  /** The rules added once the instances run: each instance's public address (/32) on the cluster's ports. */
  static List<Rule> instances(List<String> publicIps, int[] ports) {
    List<Rule> out = new ArrayList<>();
    for (String ip : publicIps) {
      out.add(new Rule(ports[0], ports[1], ip + "/32", null, "kvlab cluster instance by public address"));
    }
    return out;
  }

  /** How many inbound rules each group gets for a cluster of {@code instances} instances (all regions). */
  static int count(int instances) {
    return FIXED_RULES + instances;
  }

  /** Throws the cause and the fix when a group would need more rules than AWS's quota allows. */
  static void check(int instances) {
    int rules = count(instances);
    if (rules > MAX_RULES_PER_GROUP) {
      throw new Ec2Error("the cluster's " + instances + " instances need " + rules + " inbound rules in each region's"
          + " security group (" + FIXED_RULES + " plus one per instance's public address), more than AWS's default"
          + " quota of " + MAX_RULES_PER_GROUP + " rules per group", "start at most " + (MAX_RULES_PER_GROUP - FIXED_RULES)
          + " instances (fewer datacenters or ec2.instancesPerDatacenter), or ask for a higher 'Inbound or outbound"
          + " rules per security group' quota (Service Quotas, Amazon VPC) first");
    }
  }
}
