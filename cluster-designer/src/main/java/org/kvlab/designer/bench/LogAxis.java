package org.kvlab.designer.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.scene.chart.ValueAxis;

/**
 * A base-10 logarithmic value axis for JavaFX charts (which have none): latencies whose p50 and p99 lie orders of
 * magnitude apart both stay readable. The range is widened to whole decades around the data; major ticks (with
 * labels) at 1, 2 and 5 times each power of ten (only the powers when the range spans more than three decades),
 * minor ticks at the other multiples. The data keep their own values (milliseconds); values at or below zero,
 * which a log scale cannot show, are drawn at the bottom of the axis.
 */
final class LogAxis extends ValueAxis<Number> {
  /** The smallest value the axis shows (1 µs in milliseconds): a latency is never below it. */
  static final double FLOOR = 0.001;

  LogAxis(String label) {
    setLabel(label);
    setAutoRanging(true);
    setMinorTickVisible(true);
    setLowerBound(1);
    setUpperBound(100);
  }

  private static double log(double v) {
    return Math.log10(Math.max(FLOOR, v));
  }

  @Override
  protected Object autoRange(double minValue, double maxValue, double length, double labelSize) {
    if (!(minValue > 0) || Double.isInfinite(minValue) || Double.isNaN(maxValue) || maxValue < minValue) {
      minValue = Math.max(FLOOR, minValue);
      maxValue = Math.max(minValue * 10, maxValue);
    }
    double lower = Math.pow(10, Math.floor(log(minValue)));
    double upper = Math.pow(10, Math.ceil(log(maxValue)));
    if (upper <= lower) {
      upper = lower * 10;
    }
    return new double[] {lower, upper};
  }

  @Override
  protected void setRange(Object range, boolean animate) {
    double[] r = (double[]) range;
    setLowerBound(r[0]);
    setUpperBound(r[1]);
    currentLowerBound.set(r[0]);
  }

  @Override
  protected Object getRange() {
    return new double[] {getLowerBound(), getUpperBound()};
  }

  private double decades() {
    return Math.max(1e-9, log(getUpperBound()) - log(getLowerBound()));
  }

  @Override
  public double getDisplayPosition(Number value) {
    double f = (log(value.doubleValue()) - log(getLowerBound())) / decades();
    f = Math.max(0, f);
    return getSide().isVertical() ? (1 - f) * getHeight() : f * getWidth();
  }

  @Override
  public Number getValueForDisplay(double position) {
    double f = getSide().isVertical() ? 1 - position / getHeight() : position / getWidth();
    return Math.pow(10, log(getLowerBound()) + f * decades());
  }

  @Override
  public boolean isValueOnAxis(Number value) {
    double v = value.doubleValue();
    return v >= getLowerBound() && v <= getUpperBound();
  }

  /** The multiples of each power of ten in range: {@code major} true gives the labelled ones. */
  private List<Number> ticks(boolean major) {
    List<Number> out = new ArrayList<>();
    double lower = getLowerBound();
    double upper = getUpperBound();
    boolean onlyPowers = decades() > 3;
    for (int e = (int) Math.floor(log(lower)); e <= (int) Math.ceil(log(upper)); e++) {
      double p = Math.pow(10, e);
      for (int m = 1; m <= 9; m++) {
        double v = m * p;
        if (v < lower * 0.999 || v > upper * 1.001) {
          continue;
        }
        boolean isMajor = m == 1 || (!onlyPowers && (m == 2 || m == 5));
        if (isMajor == major) {
          out.add(v);
        }
      }
    }
    return out;
  }

  @Override
  protected List<Number> calculateTickValues(double length, Object range) {
    return ticks(true);
  }

  @Override
  protected List<Number> calculateMinorTickMarks() {
    return ticks(false);
  }

  @Override
  protected String getTickMarkLabel(Number value) {
    double v = value.doubleValue();
    if (v >= 1) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    // 0.5, 0.02, 0.001: as many decimals as the value needs
    int decimals = (int) Math.ceil(-Math.log10(v) - 1e-9);
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }
}
