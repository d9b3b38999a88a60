package org.kvlab.cluster.ec2;

/** A problem for the user, with its cause and the fix: "cause. Fix: fix". */
public final class Ec2Error extends RuntimeException {
  public Ec2Error(String cause, String fix) {
    super(cause + ". Fix: " + fix);
  }

  public Ec2Error(String cause, String fix, Throwable underlying) {
    super(cause + ". Fix: " + fix, underlying);
  }
}
