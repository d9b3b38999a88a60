package org.kvlab.cluster.ec2;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Optional;

/**
 * An instance kvlab started, as EC2 describes it, with its kvlab tags.
 *
 * @param region its region
 * @param id instance id
 * @param cluster the {@code kvlab:cluster} tag
 * @param owner the {@code kvlab:owner} tag
 * @param datacenter the {@code kvlab:datacenter} tag (-1 if absent)
 * @param type instance type
 * @param state EC2 state name (pending, running, shutting-down, ...)
 * @param spot whether it is a spot instance
 * @param launched when it was launched (the start of its bill)
 * @param expires the {@code kvlab:expires} tag: when it shuts itself down (null if absent)
 * @param publicIp public IPv4 address, if any
 * @param privateIp private IPv4 address
 * @param usdPerHour its on-demand hourly price from the price table, if the table has it (spot: at most that)
 */
public record Ec2Instance(String region, String id, String cluster, String owner, int datacenter, String type,
    String state, boolean spot, Instant launched, Instant expires, String publicIp, String privateIp,
    Optional<BigDecimal> usdPerHour) {}
