package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a committed {@link TxnRequest} returned, with the ordering facts the transaction checkers need.
 *
 * @param reads key → value read (empty = absent), for the request's read keys
 * @param writes key → value written (the request's writes, or what its procedure computed)
 * @param ts the timestamp the protocol ordered the transaction at
 * @param tid the protocol's transaction id: the tiebreak of equal timestamps ((ts, tid) is the delivery order)
 * @param parts per partition that executed part of it: the timestamp it used there, its position in that
 *     partition's delivery sequence of transactions, and the keys it executed there
 */
public record TxnResult(Map<String, Optional<ByteString>> reads, Map<String, ByteString> writes, long ts, long tid,
    Map<Integer, Part> parts) {

  /**
   * @param ts the timestamp this partition executed the transaction at
   * @param seq the transaction's position (1, 2, ...) in this partition's sequence of executed transactions
   * @param keys the transaction's keys executed at this partition
   */
  public record Part(long ts, long seq, List<String> keys) {}
}
