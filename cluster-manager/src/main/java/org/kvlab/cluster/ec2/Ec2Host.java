package org.kvlab.cluster.ec2;

import java.nio.file.Path;

/**
 * A running instance handed on to the SSH layer: where to reach it and how to log in.
 *
 * @param datacenter the datacenter it serves
 * @param index its index among that datacenter's instances (0-based)
 * @param host the reachable host, from the {@link AddressMapper}
 * @param sshPort 22
 * @param user the AMI's SSH user
 * @param keyFile the cluster's private key (PEM, mode 0600)
 * @param instance the instance as EC2 describes it
 */
public record Ec2Host(int datacenter, int index, String host, int sshPort, String user, Path keyFile,
    Ec2Instance instance) {}
