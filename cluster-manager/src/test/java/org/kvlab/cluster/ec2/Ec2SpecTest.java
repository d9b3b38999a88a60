package org.kvlab.cluster.ec2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;

/** The ec2: section of cluster files: defaults, and errors at file:line:column with the fix. */
class Ec2SpecTest {
  static final String HEAD = "name: wan\nprotocol: eventual\ndatacenters: 2\npartitions: 3\nlocal: { basePort: 7100 }\n";

  static Ec2Spec parse(String ec2) throws ConfigException {
    String yaml = HEAD + ec2;
    ClusterConfig config = ClusterConfig.parse(yaml, "c.yaml");
    return Ec2Spec.parse(yaml, "c.yaml", config);
  }

  static void fails(String ec2, String... expected) throws ConfigException {
    ConfigException e = assertThrows(ConfigException.class, () -> parse(ec2));
    for (String s : expected) {
      assertTrue(e.getMessage().contains(s), "'" + s + "' not in: " + e.getMessage());
    }
    assertTrue(e.getMessage().contains(". Fix: "), e.getMessage());
  }

  @Test
  void a_full_section_is_read() throws ConfigException {
    Ec2Spec s = parse("""
        ec2:
          instanceType: c5.large
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          ami: { us-east-1: ami-0123456789abcdef0, eu-west-1: ami-0fedcba9876543210 }
          instancesPerDatacenter: 4
          user: ec2-user
          spot: { maxWait: 2m, then: fail }
          expiryHours: 8
          owner: alice
        """);
    assertEquals("c5.large", s.instanceType());
    assertEquals(List.of("us-east-1", "eu-west-1"), s.regions());
    assertEquals("us-east-1", s.region(0));
    assertEquals("eu-west-1", s.region(1));
    assertEquals(Map.of("us-east-1", "ami-0123456789abcdef0", "eu-west-1", "ami-0fedcba9876543210"), s.ami());
    assertNull(s.lookup());
    assertEquals(4, s.instancesPerDatacenter());
    assertEquals("ec2-user", s.user());
    assertEquals(new Ec2Spec.Spot(Duration.ofMinutes(2), false), s.spot());
    assertEquals(Duration.ofHours(8), s.expiry());
    assertEquals("alice", s.owner());
  }

  @Test
  void defaults_are_debian_on_demand_one_instance_per_partition_for_four_hours() throws ConfigException {
    Ec2Spec s = parse("ec2:\n  regions: [eu-central-1]\n");
    assertEquals(Ec2Spec.DEFAULT_LOOKUP, s.lookup());
    assertEquals("admin", s.user());
    assertEquals("t3.small", s.instanceType());
    assertEquals(3, s.instancesPerDatacenter());
    assertNull(s.spot());
    assertEquals(Duration.ofHours(4), s.expiry());
    assertEquals("eu-central-1", s.region(0));
    assertEquals("eu-central-1", s.region(1), "one region holds both datacenters");
    assertTrue(!s.owner().isEmpty());
  }

  @Test
  void errors_name_the_line_and_column_and_the_fix() throws ConfigException {
    fails("ec2:\n  regions: [us-east-1]\n  regionPerDatacenter: true\n", "c.yaml:7:12: ec2.regions: names 1 region(s) but the"
        + " cluster has 2 datacenters", "list exactly one region per datacenter");
    fails("ec2:\n  regions: [us-east-1, eu-west-1]\n", "c.yaml:7:12", "regionPerDatacenter is not true");
    fails("ec2:\n  regions: [us-east-1]\n  instanceTyp: t3.small\n", "c.yaml:8:3", "unknown key 'instanceTyp'",
        "did you mean 'instanceType'?");
    fails("ec2:\n  regions: [us-east]\n", "c.yaml:7:13: ec2.regions[0]: 'us-east' is not an AWS region name");
    fails("ec2:\n  regions: [us-east-1, eu-west-1]\n  regionPerDatacenter: true\n  ami: { us-east-1: ami-0123456789abcdef0 }\n",
        "c.yaml:9:8: ec2.ami: has no AMI for region eu-west-1", "or use 'amiLookup' instead");
    fails("ec2:\n  regions: [us-east-1]\n  ami: { us-east-1: ubuntu }\n", "'ubuntu' is not an AMI id");
    fails("ec2:\n  regions: [us-east-1]\n  spot: { then: maybe }\n", "c.yaml:8:17", "'maybe' is not what to do",
        "'then: on-demand'");
    fails("ec2:\n  regions: [us-east-1]\n  expiryHours: 0\n", "c.yaml:8:16: ec2.expiryHours: 0 is out of range",
        "from 1 to 168");
    fails("ec2:\n  regions: [us-east-1]\n  instanceType: big\n", "'big' is not an EC2 instance type");
  }

  @Test
  void a_file_without_an_ec2_section_is_told_how_to_add_one() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> Ec2Spec.parse(HEAD, "c.yaml", ClusterConfig.parse(HEAD, "c.yaml")));
    assertTrue(e.getMessage().contains("the cluster file has no 'ec2:' section. Fix: add one"), e.getMessage());
  }

  @Test
  void the_price_table_is_dated_and_names_its_source() {
    PriceTable p = PriceTable.bundled();
    assertTrue(p.date().getYear() >= 2026, p.date().toString());
    assertTrue(p.source().contains("aws.amazon.com/ec2/pricing"), p.source());
    assertEquals(new BigDecimal("0.0208"), p.usdPerHour("us-east-1", "t3.small").orElseThrow());
    assertTrue(p.usdPerHour("us-east-1", "x9.huge").isEmpty());
  }

  @Test
  void the_user_data_arms_the_expiry_before_installing_the_jdk() {
    String s = UserData.script("wan", "alice", Instant.parse("2026-11-24T15:00:00Z"));
    assertTrue(s.startsWith("#!/bin/bash\n"));
    assertTrue(s.contains("OnCalendar=2026-11-24 15:00:00 UTC"), s);
    assertTrue(s.contains("EXPIRES='2026-11-24T15:00:00Z'"), s);
    assertTrue(s.contains("date -d \"$EXPIRES\" +%s"), s);
    assertTrue(s.indexOf("shutdown -h +") < s.indexOf("apt-get install"), s);
  }

  @Test
  void the_public_key_is_in_openssh_format_with_the_generated_size() {
    var pair = SshKeys.generate();
    String pub = SshKeys.openSshPublicKey(pair, "kvlab-wan-alice");
    assertTrue(pub.startsWith("ssh-rsa AAAAB3NzaC1yc2E"), pub);
    assertTrue(pub.endsWith(" kvlab-wan-alice"));
    assertEquals(SshKeys.BITS, SshKeys.modulusBits(pub));
  }
}
