package org.kvlab.api;

/**
 * The operation was refused, not failed: a bounded queue was full, on the server (a peer channel's
 * {@code limits.peerQueueMessagesMax}, answered as "overloaded") or in this client
 * ({@code limits.clientRequestsInFlightMax}). It did not take effect; retrying later is safe. Load
 * generators report it apart from errors (YCSB: {@code SERVICE_UNAVAILABLE}).
 */
public final class OverloadedException extends OperationException {
  public OverloadedException(String message) {
    super(message);
  }
}
