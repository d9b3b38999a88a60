/**
 * Reusable ordering blocks a protocol server builds on: a replicated group ordered by Raft (MicroRaft underneath,
 * its journal and snapshots in the server's store) and Skeen's atomic multicast across partitions. Each block takes
 * everything (messages, timers, store, time) from the server's {@link org.kvlab.api.ServerContext}, so it runs in
 * the real runtime and in the deterministic simulator alike.
 */
package org.kvlab.consensus;
