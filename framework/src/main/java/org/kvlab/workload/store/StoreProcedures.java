package org.kvlab.workload.store;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.api.TxnProcedure;
import org.kvlab.api.TxnProcedures;

/**
 * The online store of seed 004's Fig. 1 (Eliá) as transaction procedures over keys {@code cart:<c>} (the cart's items,
 * {@link Cart}), {@code stock:<i>} (the units of item i left, a whole number; absent = {@link #INITIAL_STOCK}) and
 * {@code item:<i>} (an item's description, never written) and {@code order:<c>:<n>} (an order record, {@link Cart} form of the units taken, or {@link #REFUSED}). Arguments bind
 * the parameters of examples/operations/online-store.yaml in order:
 *
 * <ul>
 *   <li>{@code create(c)} over {@code [cart:c]}: an empty cart;
 *   <li>{@code addToCart(c, i, q)} over {@code [cart:c, stock:i]}: q units of item i into cart c if the stock holds q now
 *       (reads the stock, does not change it); otherwise the cart stays as it was;
 *   <li>{@code order(c, n)} over {@code [cart:c, order:c:n]} and every {@code stock:<i>} of the catalog (the
 *       procedure cannot know the cart's items before it runs): if the stock holds every line of the cart, each
 *       stock is decremented by its line and the record {@code order:c:n} lists the units taken; <b>if any line is
 *       short, the order takes nothing</b> (all or nothing: no stock ever goes negative, no partial order to explain)
 *       and the record says {@link #REFUSED}. Either way the cart is emptied (the customer starts over);
 *   <li>{@code browseCatalog()} over {@code item:<i>} keys: reads the catalog's item descriptions, which no
 *       operation writes (immutable, so the classification makes it commutative), writes nothing.
 * </ul>
 *
 * Invariants ({@link StoreChecker}): no stock is ever read or written below 0; for every item, the stock left plus
 * the units of the order records equals {@link #INITIAL_STOCK}. None is key-local ({@code order} writes stock from
 * what it read in the cart).
 */
public final class StoreProcedures {
  /** The units of every item before any order (an absent {@code stock:<i>} holds this many). */
  public static final long INITIAL_STOCK = 20;
  public static final String REFUSED = "refused";
  public static final String CREATE = "create";
  public static final String ADD = "addToCart";
  public static final String ORDER = "order";
  public static final String BROWSE = "browseCatalog";

  private StoreProcedures() {}

  /** The procedures, for {@code TxnProcedures}' built-in list. */
  public static List<TxnProcedure> all() {
    return List.of(
        new Named(CREATE, 1, "create(c) over [cart:c]") {
          @Override
          void check(List<String> keys, List<String> args) {
            require(keys.equals(List.of(cart(args.get(0)))), "its only key is cart:" + args.get(0), keys);
          }

          @Override
          public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
            return Map.of(cart(args.get(0)), ByteString.EMPTY);
          }
        },
        new Named(ADD, 3, "addToCart(c, i, q) over [cart:c, stock:i], q a whole number above 0") {
          @Override
          void check(List<String> keys, List<String> args) {
            TxnProcedures.wholeNumber(ADD, "q", args.get(2), form);
            require(Long.parseLong(args.get(2)) > 0, "q is above 0", keys);
            require(keys.equals(List.of(cart(args.get(0)), stock(args.get(1)))), "its keys are cart:c and stock:i",
                keys);
          }

          @Override
          public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
            String c = cart(args.get(0));
            long q = Long.parseLong(args.get(2));
            if (stockOf(read.get(stock(args.get(1)))) < q) {
              return Map.of();
            }
            TreeMap<String, Long> lines = Cart.parse(read.get(c));
            lines.merge(args.get(1), q, Long::sum);
            return Map.of(c, Cart.format(lines));
          }
        },
        new Named(ORDER, 2, "order(c, n) over [cart:c, order:c:n, stock:<i> of every item]") {
          @Override
          void check(List<String> keys, List<String> args) {
            require(keys.contains(cart(args.get(0))) && keys.contains(record(args.get(0), args.get(1))),
                "its keys include cart:c and order:c:n", keys);
            require(keys.stream().filter(k -> !k.equals(cart(args.get(0))) && !k.equals(record(args.get(0),
                args.get(1)))).allMatch(k -> k.startsWith("stock:")), "its other keys are stock:<i>", keys);
          }

          @Override
          public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
            String c = cart(args.get(0));
            TreeMap<String, Long> lines = Cart.parse(read.get(c));
            Map<String, ByteString> out = new TreeMap<>();
            boolean filled = true;
            for (Map.Entry<String, Long> line : lines.entrySet()) {
              String s = stock(line.getKey());
              filled &= read.containsKey(s) && stockOf(read.get(s)) >= line.getValue();
            }
            if (filled) {
              lines.forEach((i, q) -> out.put(stock(i), TxnProcedures.text(stockOf(read.get(stock(i))) - q)));
            }
            out.put(record(args.get(0), args.get(1)), filled ? Cart.format(lines) : ByteString.copyFromUtf8(REFUSED));
            out.put(c, ByteString.EMPTY);
            return out;
          }
        },
        new Named(BROWSE, 0, "browseCatalog() over item:<i> keys") {
          @Override
          void check(List<String> keys, List<String> args) {
            require(keys.stream().allMatch(k -> k.startsWith("item:")), "its keys are item:<i>", keys);
          }

          @Override
          public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
            return Map.of();
          }
        });
  }

  public static String cart(String c) {
    return "cart:" + c;
  }

  public static String stock(String item) {
    return "stock:" + item;
  }

  public static String record(String c, String n) {
    return "order:" + c + ":" + n;
  }

  /** The units a stock value holds: absent = {@link #INITIAL_STOCK}. */
  public static long stockOf(Optional<ByteString> v) {
    return v == null || v.isEmpty() ? INITIAL_STOCK : TxnProcedures.number(v);
  }

  /** A store procedure: its name, arity and form; none is key-local. */
  private abstract static class Named implements TxnProcedure {
    private final String name;
    private final int arity;
    final String form;

    Named(String name, int arity, String form) {
      this.name = name;
      this.arity = arity;
      this.form = form;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public boolean keyLocal() {
      return false;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      if (args.size() != arity) {
        throw new IllegalArgumentException("procedure " + name + " takes " + arity + " arguments, got " + args
            + ". Fix: " + form);
      }
      check(keys, args);
    }

    abstract void check(List<String> keys, List<String> args);

    void require(boolean ok, String what, List<String> keys) {
      if (!ok) {
        throw new IllegalArgumentException("procedure " + name + ": " + what + ", got keys " + keys + ". Fix: "
            + form);
      }
    }
  }
}
