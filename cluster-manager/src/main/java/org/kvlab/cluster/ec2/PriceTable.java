package org.kvlab.cluster.ec2;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Hourly on-demand prices of a few common instance types and regions, from the dated resource
 * {@code org/kvlab/cluster/ec2/prices.txt} (which names its source). An estimate, not a bill: types or regions
 * not in the table have no price, and callers say so instead of guessing.
 */
public final class PriceTable {
  public static final String RESOURCE = "/org/kvlab/cluster/ec2/prices.txt";
  /** What AWS charges per hour for each public IPv4 address (in use or not), since 2024-02-01; one per instance. */
  public static final BigDecimal PUBLIC_IPV4_USD_PER_HOUR = new BigDecimal("0.005");

  private final LocalDate date;
  private final String source;
  private final Map<String, BigDecimal> usdPerHour;

  private PriceTable(LocalDate date, String source, Map<String, BigDecimal> usdPerHour) {
    this.date = date;
    this.source = source;
    this.usdPerHour = Map.copyOf(usdPerHour);
  }

  /** The table shipped with kvlab. */
  public static PriceTable bundled() {
    try (InputStream in = PriceTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the price table " + RESOURCE + " is missing from the build");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static PriceTable parse(String text) {
    LocalDate date = null;
    String source = null;
    Map<String, BigDecimal> prices = new HashMap<>();
    int n = 0;
    try (BufferedReader r = new BufferedReader(new java.io.StringReader(text))) {
      for (String line; (line = r.readLine()) != null; ) {
        n++;
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#")) {
          continue;
        }
        if (t.startsWith("date:")) {
          date = LocalDate.parse(t.substring(5).strip());
        } else if (t.startsWith("source:")) {
          source = t.substring(7).strip();
        } else {
          String[] f = t.split("\\s+");
          if (f.length != 3) {
            throw new IllegalStateException(RESOURCE + ":" + n + ": expected 'region type usd-per-hour'");
          }
          prices.put(f[0] + " " + f[1], new BigDecimal(f[2]));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (date == null || source == null || prices.isEmpty()) {
      throw new IllegalStateException(RESOURCE + ": needs a 'date:', a 'source:' and at least one price");
    }
    return new PriceTable(date, source, prices);
  }

  /** When the prices were recorded. */
  public LocalDate date() {
    return date;
  }

  /** Where they come from. */
  public String source() {
    return source;
  }

  /** USD per hour of one on-demand Linux instance of {@code type} in {@code region}, if the table has it. */
  public Optional<BigDecimal> usdPerHour(String region, String type) {
    return Optional.ofNullable(usdPerHour.get(region + " " + type));
  }
}
