package org.kvlab.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.config.ClusterConfig.StorageSpec.Engine;
import org.kvlab.testing.TestRecord;

class StoresTest {
  @TempDir Path tmp;

  @Test
  void when_engine_is_memory_with_durability_none_then_an_in_memory_store_opens() {
    try (VersionedStore<TestRecord> s = Stores.open(VersionedStoreContract.TYPE,
        new StorageSpec(Engine.MEMORY, Durability.NONE, tmp), "c", NodeId.of(0, 0))) {
      assertInstanceOf(InMemoryStore.class, s);
    }
  }

  @Test
  void when_engine_is_memory_with_durability_sync_then_illegal_argument() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Stores.open(
        VersionedStoreContract.TYPE, new StorageSpec(Engine.MEMORY, Durability.SYNC, tmp), "c", NodeId.of(0, 0)));
    assertEquals("storage.engine memory cannot give durability sync: use engine je, or durability none", e.getMessage());
  }

  @Test
  void when_engine_is_je_then_the_store_lives_in_the_server_directory() {
    NodeId id = NodeId.of(1, 2);
    StorageSpec spec = new StorageSpec(Engine.JE, Durability.SYNC, tmp);
    try (VersionedStore<TestRecord> s = Stores.open(VersionedStoreContract.TYPE, spec, "demo", id)) {
      assertInstanceOf(JeStore.class, s);
      assertEquals(Durability.SYNC, ((JeStore<TestRecord>) s).durability());
      s.put("k", VersionedStoreContract.rec(1, 0));
      s.sync();
    }
    Path dir = tmp.resolve("demo").resolve("1_2");
    assertTrue(Files.exists(dir.resolve("00000000.jdb")), "no JE log in " + dir);
    try (VersionedStore<TestRecord> s = Stores.open(VersionedStoreContract.TYPE, spec, "demo", id)) {
      assertEquals(List.of(VersionedStoreContract.rec(1, 0)), s.versions("k"));
    }
  }
}
