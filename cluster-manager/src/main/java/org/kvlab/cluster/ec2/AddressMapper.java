package org.kvlab.cluster.ec2;

/**
 * Maps an instance to the host name or address this machine reaches it at (over SSH and the cluster's ports).
 * The default takes its public address; tests map instances of the EC2 emulator, whose addresses are fake, to
 * loopback or to network namespaces they created.
 */
@FunctionalInterface
public interface AddressMapper {
  /** Public IPv4 address if the instance has one, else its private address. */
  AddressMapper PUBLIC = i -> i.publicIp() != null ? i.publicIp() : i.privateIp();

  String reachableHost(Ec2Instance instance);
}
