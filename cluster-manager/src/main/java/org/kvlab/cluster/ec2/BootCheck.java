package org.kvlab.cluster.ec2;

/**
 * Whether an instance's first boot ({@link UserData}) is done: one shell command run over SSH, and the reading of
 * its output. Ready when the user data wrote {@link UserData#READY} and Java runs; failed when it wrote
 * {@link UserData#FAILED}, or when cloud-init finished (status done or error) without either (the user data did
 * not run to its end); else still booting. A host without cloud-init (or with it disabled) runs no user data: it is
 * ready when Java runs there.
 */
final class BootCheck {
  /** What {@link #read} reads. */
  static String command(String java) {
    return "if [ -f " + UserData.READY + " ]; then echo kvlab-ready; " + java + " -version 2>&1;"
        + " elif [ -f " + UserData.FAILED + " ]; then echo kvlab-failed; tail -n 15 " + UserData.LOG + " 2>&1;"
        + " else s=$(cloud-init status 2>/dev/null | sed -n 's/^status: //p');"
        + " if { [ -z \"$s\" ] || [ \"$s\" = disabled ]; } && " + java + " -version >/dev/null 2>&1; then"
        + " echo kvlab-ready; " + java + " -version 2>&1; else echo \"kvlab-booting $s\"; fi; fi";
  }

  enum State { READY, BOOTING, FAILED }

  /** The state and what to tell about it. */
  record Result(State state, String detail) {}

  private BootCheck() {}

  static Result read(boolean exitedZero, String output) {
    String out = output == null ? "" : output.strip();
    String first = out.lines().findFirst().orElse("").strip();
    String rest = out.lines().skip(1).reduce((a, b) -> a + "\n" + b).orElse("").strip();
    if (first.equals("kvlab-ready")) {
      return exitedZero ? new Result(State.READY, rest)
          : new Result(State.FAILED, "the user data finished but java does not run: " + rest);
    }
    if (first.equals("kvlab-failed")) {
      return new Result(State.FAILED, "the user data could not install Java; the end of " + UserData.LOG + ":\n" + rest);
    }
    if (first.startsWith("kvlab-booting")) {
      String status = first.substring("kvlab-booting".length()).strip();
      if (status.equals("done") || status.equals("error")) {
        return new Result(State.FAILED, "cloud-init finished (status " + status + ") but the user data did not: see "
            + UserData.LOG + " and /var/log/cloud-init-output.log on the instance");
      }
      return new Result(State.BOOTING, "first boot still running" + (status.isEmpty() ? "" : " (cloud-init " + status + ")"));
    }
    return new Result(State.BOOTING, "unexpected answer: " + out);
  }
}
