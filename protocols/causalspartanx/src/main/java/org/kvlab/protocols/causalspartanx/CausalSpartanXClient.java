package org.kvlab.protocols.causalspartanx;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.ReadOnlyTransactions;

/** CausalSpartanX, client side: Alg 5.1 (GET, PUT) and the client part of Alg 5.4 (ROTX). */
final class CausalSpartanXClient extends Client implements ReadOnlyTransactions {
  private long[] dsvC;                                   // DSV_c: the latest DSV this client knows
  // DS_c: ≤ one ⟨dc, hlc⟩ per datacenter, as dsC[dc] (Deps.ABSENT: no entry); an array, not a map, as it is read
  // and merged on every operation (same entries, same ascending order on the wire as the TreeMap it replaced)
  private long[] dsC;

  @Override
  protected void onStart() {
    dsvC = new long[topology().datacenters()];
    dsC = Deps.emptyArray(topology().datacenters());
  }

  /** GET(k), Alg 5.1: send ⟨GetReq k, DSV_c⟩; DSV_c ← max(DSV_c, dsv); DS_c ← maxDS(DS_c, ds). */
  @Override
  public CompletableFuture<Optional<ByteString>> get(String key) {
    GetReq.Builder b = GetReq.newBuilder().setKey(key);
    for (long t : dsvC) { // as addAllDsv(Deps.toList(dsvC)), without boxing
      b.addDsv(t);
    }
    return call(serverFor(key), b.build(), GetReply.class).thenApply(r -> {
      for (int i = 0; i < Math.min(dsvC.length, r.getDsvCount()); i++) { // Deps.maxInto, without boxing
        dsvC[i] = Math.max(dsvC[i], r.getDsv(i));
      }
      Deps.maxDS(dsC, r.getDsList());
      return r.getFound() ? Optional.of(r.getValue()) : Optional.empty();
    });
  }

  /** PUT(k, v), Alg 5.1: send ⟨PutReq k, v, DS_c⟩; DS_c ← maxDS(DS_c, {⟨sr, ut⟩}). */
  @Override
  public CompletableFuture<Void> put(String key, ByteString value) {
    PutReq.Builder b = PutReq.newBuilder().setKey(key).setValue(value);
    for (int dc = 0; dc < dsC.length; dc++) { // as addAllDs(Deps.toProto(dsC)), without the list
      if (dsC[dc] != Deps.ABSENT) {
        b.addDs(DcTime.newBuilder().setDc(dc).setTime(dsC[dc]));
      }
    }
    return call(serverFor(key), b.build(), PutReply.class).thenApply(r -> {
      Deps.put(dsC, r.getSr(), r.getUt());
      return null;
    });
  }

  /** ROTX(kset), Alg 5.4 client: one round trip to a server hosting one of the keys (the coordinator). */
  @Override
  public CompletableFuture<Map<String, Optional<ByteString>>> readOnlyTx(Collection<String> keys) {
    List<String> kset = new ArrayList<>(new java.util.LinkedHashSet<>(keys));
    if (kset.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    RotxReq req = RotxReq.newBuilder().addAllKeys(kset).addAllDsv(Deps.toList(dsvC)).addAllDs(Deps.toProto(dsC)).build();
    return call(serverFor(kset.get(0)), req, RotxReply.class).thenApply(r -> {
      Deps.maxInto(dsvC, r.getDsvList());
      Deps.maxDS(dsC, r.getDsList());
      Map<String, Optional<ByteString>> out = new LinkedHashMap<>();
      for (KeyValue kv : r.getValuesList()) {
        out.put(kv.getKey(), kv.getFound() ? Optional.of(kv.getValue()) : Optional.empty());
      }
      return out;
    });
  }
}
