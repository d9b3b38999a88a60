package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.testing.TestRecord;

class InMemoryStoreTest extends VersionedStoreContract {
  @Override
  protected VersionedStore<TestRecord> newStore() {
    return new InMemoryStore<>(TYPE);
  }

  @Test
  void when_two_stores_get_the_same_operations_then_they_answer_identically() {
    // Determinism for the simulator: nothing depends on identity hash codes or insertion history.
    InMemoryStore<TestRecord> a = new InMemoryStore<>(TYPE);
    InMemoryStore<TestRecord> b = new InMemoryStore<>(TYPE);
    for (int i = 0; i < 500; i++) {
      a.put("k" + (i % 7), rec(i * 31 % 101, i % 3));
    }
    for (int i = 499; i >= 0; i--) {
      b.put("k" + (i % 7), rec(i * 31 % 101, i % 3));
    }
    for (int k = 0; k < 7; k++) {
      List<TestRecord> va = a.versions("k" + k);
      assertEquals(va, b.versions("k" + k));
      assertEquals(newestFirst(va), va);
    }
    assertEquals(a.keyCount(), b.keyCount());
  }
}
