package org.kvlab.protocols.epaxos;

import java.util.Collection;
import org.kvlab.api.Protocol;

/** Deliberately broken EPaxos variants, each differing from {@link EPaxosServer} in one rule. */
final class Mutants {
  private Mutants() {}

  /**
   * Bug: a replica executes a command as soon as it is committed, without waiting for its dependencies to commit and
   * execute. Replicas then apply interfering commands in the order their commits arrived, which differs between
   * replicas. Expected catch: linearizable (and convergence).
   */
  static Protocol executeOnCommit() {
    return new Variant("epaxos-execute-on-commit", () -> new EPaxosServer() {
      @Override
      void committed(long id) {
        if (!executed(id)) {
          execute(entry(id)); // BUG: no dependency graph, no wait
        }
      }
    });
  }

  /**
   * Bug: the leader takes the fast path whatever the fast quorum answered: it commits its own attributes even when
   * replicas reported interfering commands it did not know. Two concurrent interfering commands may then commit
   * without depending on each other and execute in different orders at different replicas. Expected catch:
   * linearizable.
   */
  static Protocol fastPathWithoutAgreement() {
    return new Variant("epaxos-fast-without-agreement", () -> new EPaxosServer() {
      @Override
      boolean fastPathAgrees(Collection<PreAcceptReply> replies) {
        return true; // BUG: commits on the leader's attributes alone
      }
    });
  }
}
