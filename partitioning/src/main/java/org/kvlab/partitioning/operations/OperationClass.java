package org.kvlab.partitioning.operations;

/** Seed 004's classes of operations. */
public enum OperationClass {
  /** Commutative: conflicts with no operation; any server runs it, no coordination, no replication. */
  C,
  /** Local: runs at once at the server its partitioning parameter routes to; never replicated. */
  L,
  /** Global: runs at its server under the token; its writes travel on the token to every server. */
  G
}
