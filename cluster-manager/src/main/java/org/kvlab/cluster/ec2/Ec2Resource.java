package org.kvlab.cluster.ec2;

/**
 * One thing kvlab created in EC2 (or on this machine: the private key file, the instances' known_hosts).
 *
 * @param kind what it is
 * @param region its region ("" for the local key file)
 * @param id its EC2 id (instance id, group id, key pair name, or the key file's path)
 * @param detail a short description, e.g. "datacenter 0, t3.small, spot"
 */
public record Ec2Resource(Kind kind, String region, String id, String detail) {
  public enum Kind { KEY_PAIR, SECURITY_GROUP, INGRESS_RULE, INSTANCE, KEY_FILE, KNOWN_HOSTS }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " " + id
        + (region.isEmpty() ? "" : " in " + region) + (detail.isEmpty() ? "" : " (" + detail + ")");
  }
}
