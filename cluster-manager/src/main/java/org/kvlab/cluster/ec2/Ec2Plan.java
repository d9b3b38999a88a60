package org.kvlab.cluster.ec2;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code up} would create for a cluster and what it would cost: the dry run. Computed without calling AWS.
 *
 * @param cluster cluster name
 * @param owner the owner tag
 * @param regions per region: the key pair, the security group and its rules, the AMI
 * @param datacenters per datacenter: region, instance count, type, market
 * @param usdPerHour total hourly cost estimate (on-demand prices plus each instance's public IPv4 address; empty if a
 *     type/region is not in the table)
 * @param missingPrices type/region pairs the price table lacks
 * @param expiry how long the instances live at most
 * @param pricesDate the date of the price table
 * @param pricesSource the source of the price table
 */
public record Ec2Plan(String cluster, String owner, List<RegionPlan> regions, List<DatacenterPlan> datacenters,
    Optional<BigDecimal> usdPerHour, List<String> missingPrices, Duration expiry, LocalDate pricesDate, String pricesSource) {

  public record RegionPlan(String region, String keyPair, String securityGroup, List<String> ingress, String ami) {}

  public record DatacenterPlan(int datacenter, String region, int instances, String type, String market,
      Optional<BigDecimal> usdPerHourEach) {}

  public int instances() {
    return datacenters.stream().mapToInt(DatacenterPlan::instances).sum();
  }

  /** The plan as text lines (for a front end to show). */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    out.add("cluster " + cluster + " (owner " + owner + "): " + instances() + " instances in " + regions.size()
        + " region(s), expiring " + expiry.toHours() + " h after start");
    for (RegionPlan r : regions) {
      out.add("  " + r.region() + ": key pair " + r.keyPair() + ", security group " + r.securityGroup() + ", AMI " + r.ami());
      for (String rule : r.ingress()) {
        out.add("    ingress " + rule);
      }
    }
    for (DatacenterPlan d : datacenters) {
      out.add("  datacenter " + d.datacenter() + ": " + d.instances() + " x " + d.type() + " (" + d.market() + ") in "
          + d.region() + d.usdPerHourEach().map(p -> ", USD " + p.toPlainString() + "/h each").orElse(", price unknown"));
    }
    out.add(cost());
    return out;
  }

  /** The cost line. */
  public String cost() {
    String dated = " (on-demand prices of " + pricesDate + ", " + pricesSource + ", plus USD "
        + PriceTable.PUBLIC_IPV4_USD_PER_HOUR.toPlainString() + "/h per public IPv4 address; spot costs at most this)";
    if (usdPerHour.isEmpty()) {
      return "cost: unknown, the price table has no price for " + String.join(", ", missingPrices) + dated;
    }
    BigDecimal h = usdPerHour.get();
    BigDecimal max = h.multiply(BigDecimal.valueOf(expiry.toHours()));
    return "cost: about USD " + h.setScale(4, RoundingMode.HALF_UP).toPlainString() + " per hour, at most USD "
        + max.setScale(2, RoundingMode.HALF_UP).toPlainString() + " until the expiry" + dated;
  }
}
