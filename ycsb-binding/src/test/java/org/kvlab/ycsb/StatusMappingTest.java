package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.OperationException;
import org.kvlab.api.OverloadedException;

/** Refusals (full queues) become SERVICE_UNAVAILABLE by type, whatever their message says; failures stay ERROR. */
class StatusMappingTest {
  @Test
  void when_theRuntimeRefusesAnOperation_then_itCountsAsBackPressureEvenWhenWrapped() {
    assertTrue(KvlabDB.isBackPressure(new OverloadedException("server 0_0 is overloaded: queue full")));
    assertTrue(KvlabDB.isBackPressure(new CompletionException(new OverloadedException("too many requests in flight"))));
    assertTrue(KvlabDB.isBackPressure(new BackPressureException("peer queue full")));
  }

  @Test
  void when_anOperationFails_then_itIsNotBackPressureEvenIfItsTextLooksLikeIt() {
    assertFalse(KvlabDB.isBackPressure(new OperationException("server 0_0 is overloaded: but this is a plain failure")));
    assertFalse(KvlabDB.isBackPressure(new IllegalStateException("timed out")));
  }
}
