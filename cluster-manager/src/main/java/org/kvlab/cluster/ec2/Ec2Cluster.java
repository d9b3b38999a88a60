package org.kvlab.cluster.ec2;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A cluster {@code up} started: its hosts, ready for the SSH layer.
 *
 * @param cluster cluster name
 * @param owner the owner tag
 * @param expires when the instances terminate themselves
 * @param keyFile the private key (PEM, mode 0600) that logs in to every host
 * @param hosts the hosts, datacenter by datacenter
 * @param usdPerHour hourly cost estimate (empty if the price table lacks a type/region)
 */
public record Ec2Cluster(String cluster, String owner, Instant expires, Path keyFile, List<Ec2Host> hosts,
    Optional<BigDecimal> usdPerHour) {
  public Ec2Cluster {
    hosts = List.copyOf(hosts);
  }
}
