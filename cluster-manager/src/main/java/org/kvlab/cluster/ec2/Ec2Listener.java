package org.kvlab.cluster.ec2;

/**
 * Progress and per-resource events of {@link Ec2Provisioner} (the CLI prints them; a GUI shows them). Called on
 * the provisioning thread; must not block for long. Never receives secrets (no key material, no credentials).
 */
public interface Ec2Listener {
  Ec2Listener NONE = new Ec2Listener() {};

  /** What the provisioner is doing now, e.g. "waiting for 3 instances in eu-west-1 to run". */
  default void progress(String message) {}

  /** A resource was created (and tagged). */
  default void created(Ec2Resource resource) {}

  /** A resource was deleted (instances: terminated). */
  default void deleted(Ec2Resource resource) {}
}
