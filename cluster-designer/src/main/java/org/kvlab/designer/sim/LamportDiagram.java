package org.kvlab.designer.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.geometry.Orientation;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ScrollBar;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.shape.StrokeLineCap;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;
import org.kvlab.sim.Trace;

/**
 * A Lamport diagram on a canvas: one lifeline per process (sessions, then servers), time flowing down one row
 * per event (the rows of a {@link Trace.Layout}), an arrow per message from its send to its receipt, marks for
 * operations (invocation: circle, completion: square) and crashes. Rows a violation involves are red. Scrolls
 * (wheel, scroll bars), zooms (ctrl+wheel, {@link #zoomProperty()}); a click selects a step (a row), drawn as a
 * yellow band. Only the visible rows are drawn, so a run of tens of thousands of messages stays smooth.
 */
public final class LamportDiagram extends Region {
  static final double HEADER = 46;
  static final double TIME_W = 84;
  static final double ROW_H = 20;
  static final double COL_W = 170;
  private static final Color FOCUS = Color.web("#d32f2f");
  private static final Color MESSAGE = Color.web("#4a78b5");
  private static final Color REPLY = Color.web("#7a8fa8");
  private static final Color SESSION = Color.web("#2e7d32");
  private static final Color SERVER = Color.web("#1a3a6b");

  private final Canvas canvas = new Canvas();
  private final ScrollBar vbar = new ScrollBar();
  private final ScrollBar hbar = new ScrollBar();
  private final DoubleProperty zoom = new SimpleDoubleProperty(1);
  private final IntegerProperty selectedRow = new SimpleIntegerProperty(-1);
  private Trace.Layout layout = new Trace.Layout(List.of(), List.of(), List.of(), 0);
  private List<Trace.Entry> entries = List.of();
  private Map<String, Integer> columns = Map.of();
  private int[] sendRow = new int[0];
  private int[] recvRow = new int[0];
  private final List<int[]> downSpans = new ArrayList<>(); // column, from row, to row (crash .. restart)

  public LamportDiagram() {
    setId("sim-diagram");
    vbar.setOrientation(Orientation.VERTICAL);
    vbar.setId("sim-diagram-vbar");
    hbar.setId("sim-diagram-hbar");
    getChildren().addAll(canvas, vbar, hbar);
    vbar.valueProperty().addListener((o, a, b) -> paint());
    hbar.valueProperty().addListener((o, a, b) -> paint());
    zoom.addListener((o, a, b) -> {
      int keep = selectedRow.get();
      updateScrollRanges();
      requestLayout();
      if (keep >= 0) {
        reveal(keep);
      }
      paint();
    });
    selectedRow.addListener((o, a, b) -> {
      if (b.intValue() >= 0) {
        reveal(b.intValue());
      }
      paint();
    });
    addEventFilter(ScrollEvent.SCROLL, e -> {
      if (e.isControlDown()) {
        setZoom(zoom.get() * (e.getDeltaY() > 0 ? 1.25 : 0.8));
      } else {
        vbar.setValue(clamp(vbar.getValue() - e.getDeltaY() * 2, vbar.getMin(), vbar.getMax()));
        hbar.setValue(clamp(hbar.getValue() - e.getDeltaX() * 2, hbar.getMin(), hbar.getMax()));
      }
      e.consume();
    });
    canvas.setOnMouseClicked(e -> {
      int row = rowAt(e.getY());
      if (row >= 0) {
        selectedRow.set(row);
      }
    });
    setMinSize(200, 150);
  }

  /** Shows {@code layout} (rows of the trace {@code entries}); selects no row. */
  public void show(Trace.Layout layout, List<Trace.Entry> entries) {
    this.layout = layout;
    this.entries = entries;
    this.columns = SimRun.index(layout.columns());
    sendRow = new int[entries.size()];
    recvRow = new int[entries.size()];
    Arrays.fill(sendRow, -1);
    Arrays.fill(recvRow, -1);
    downSpans.clear();
    int[] downSince = new int[layout.columns().size()];
    Arrays.fill(downSince, -1);
    for (int r = 0; r < layout.rows().size(); r++) {
      Trace.Row row = layout.rows().get(r);
      if (row.receive()) {
        recvRow[row.entry()] = r;
      } else {
        sendRow[row.entry()] = r;
      }
      Trace.Entry e = entries.get(row.entry());
      Integer c = columns.get(row.process());
      if (!e.isMessage() && e.opId() < 0 && c != null) {
        if (e.label().equals("CRASH")) {
          downSince[c] = r;
        } else if (e.label().equals("RESTART")) {
          downSpans.add(new int[] {c, Math.max(0, downSince[c]), r});
          downSince[c] = -1;
        }
      }
    }
    for (int c = 0; c < downSince.length; c++) {
      if (downSince[c] >= 0) {
        downSpans.add(new int[] {c, downSince[c], layout.rows().size()});
      }
    }
    selectedRow.set(-1);
    vbar.setValue(0);
    hbar.setValue(0);
    updateScrollRanges();
    requestLayout();
    paint();
  }

  public Trace.Layout diagramLayout() {
    return layout;
  }

  /** The selected step (row index), -1 for none. */
  public IntegerProperty selectedRowProperty() {
    return selectedRow;
  }

  /** Scale of rows and columns (1 = 20 px per row, 170 px per lifeline). */
  public DoubleProperty zoomProperty() {
    return zoom;
  }

  public void setZoom(double z) {
    zoom.set(clamp(z, 0.2, 4));
  }

  private double rowH() {
    return ROW_H * zoom.get();
  }

  /** A lifeline's width: 170 px at zoom 1, wider (up to 340 px) when few lifelines leave room. */
  private double colW() {
    int n = Math.max(1, layout.columns().size());
    double fill = Math.min(2 * COL_W, Math.max(COL_W, (canvas.getWidth() - TIME_W) / n));
    return Math.max(50, fill * zoom.get());
  }

  /** Scrolls so that row {@code r} is in view (centred if it was out of view). */
  public void reveal(int r) {
    double viewH = canvas.getHeight() - HEADER;
    double y = r * rowH();
    if (y < vbar.getValue() || y + rowH() > vbar.getValue() + viewH) {
      vbar.setValue(clamp(y - viewH / 2, 0, vbar.getMax()));
    }
    if (r >= 0 && r < layout.rows().size()) {
      Integer c = columns.get(layout.rows().get(r).process());
      double viewW = canvas.getWidth() - TIME_W;
      double x = c == null ? 0 : c * colW(); // the lifeline's column, from the left of the columns
      if (c != null && (x < hbar.getValue() || x + colW() > hbar.getValue() + viewW)) {
        hbar.setValue(clamp(x - viewW / 3, 0, hbar.getMax()));
      }
    }
  }

  /** The canvas y of the middle of row {@code r} with the current scroll and zoom. */
  public double rowY(int r) {
    return HEADER + r * rowH() - vbar.getValue() + rowH() / 2;
  }

  /** The canvas x of process {@code p}'s lifeline, or NaN if it has none. */
  public double lifelineX(String p) {
    Integer c = columns.get(p);
    return c == null ? Double.NaN : TIME_W + c * colW() + colW() / 2 - hbar.getValue();
  }

  /** The row at canvas height {@code y}, or -1. */
  public int rowAt(double y) {
    if (y < HEADER) {
      return -1;
    }
    int r = (int) Math.floor((y - HEADER + vbar.getValue()) / rowH());
    return r >= 0 && r < layout.rows().size() ? r : -1;
  }

  public Canvas canvas() {
    return canvas;
  }

  @Override
  protected void layoutChildren() {
    double w = getWidth();
    double h = getHeight();
    double sb = 14;
    canvas.setWidth(Math.max(0, w - sb));
    canvas.setHeight(Math.max(0, h - sb));
    canvas.relocate(0, 0);
    vbar.resizeRelocate(w - sb, 0, sb, h - sb);
    hbar.resizeRelocate(0, h - sb, w - sb, sb);
    updateScrollRanges();
    paint();
  }

  /** Scroll ranges for the current layout, zoom and size. */
  private void updateScrollRanges() {
    double contentH = layout.rows().size() * rowH();
    double viewH = Math.max(1, canvas.getHeight() - HEADER);
    vbar.setMax(Math.max(0, contentH - viewH + rowH()));
    vbar.setVisibleAmount(viewH);
    vbar.setUnitIncrement(rowH());
    vbar.setBlockIncrement(viewH * 0.9);
    double contentW = TIME_W + layout.columns().size() * colW();
    hbar.setMax(Math.max(0, contentW - canvas.getWidth()));
    hbar.setVisibleAmount(canvas.getWidth());
    hbar.setUnitIncrement(colW() / 4);
    vbar.setValue(clamp(vbar.getValue(), 0, vbar.getMax()));
    hbar.setValue(clamp(hbar.getValue(), 0, hbar.getMax()));
  }

  private void paint() {
    GraphicsContext g = canvas.getGraphicsContext2D();
    double w = canvas.getWidth();
    double h = canvas.getHeight();
    g.setFill(Color.WHITE);
    g.fillRect(0, 0, w, h);
    List<Trace.Row> rows = layout.rows();
    if (layout.columns().isEmpty()) {
      g.setFill(Color.GRAY);
      g.setFont(Font.font(14));
      g.setTextAlign(TextAlignment.CENTER);
      g.fillText("Run a seed to see its messages here.", w / 2, h / 2);
      g.setTextAlign(TextAlignment.LEFT);
      return;
    }
    double rh = rowH();
    int first = Math.max(0, (int) Math.floor(vbar.getValue() / rh) - 1);
    int last = Math.min(rows.size() - 1, (int) Math.ceil((vbar.getValue() + h - HEADER) / rh) + 1);
    boolean labels = rh >= 11;
    Font font = Font.font("Monospaced", Math.max(8, Math.min(13, rh * 0.6)));
    g.setFont(font);
    g.setTextBaseline(VPos.CENTER);
    g.save();
    g.beginPath();
    g.rect(0, HEADER, w, h - HEADER);
    g.clip();
    // selected step
    int sel = selectedRow.get();
    if (sel >= first && sel <= last) {
      g.setFill(Color.web("#fff3b0"));
      g.fillRect(0, rowY(sel) - rh / 2, w, rh);
    }
    // lifelines, and where a server was down
    for (String p : layout.columns()) {
      double x = lifelineX(p);
      g.setStroke(Color.web("#c8c8c8"));
      g.setLineWidth(1);
      g.setLineDashes();
      g.strokeLine(x, HEADER, x, h);
    }
    for (int[] span : downSpans) {
      double x = lifelineX(layout.columns().get(span[0]));
      g.setStroke(Color.web("#9e9e9e"));
      g.setLineWidth(4);
      g.setLineDashes(4, 4);
      g.strokeLine(x, Math.max(HEADER, rowY(span[1])), x, Math.min(h, rowY(span[2])));
      g.setLineDashes();
    }
    // gaps (rows a centred diagram leaves out)
    for (int r = first; r <= last; r++) {
      int hidden = layout.hiddenBefore().get(r);
      if (hidden > 0) {
        double y = rowY(r) - rh / 2;
        g.setStroke(Color.web("#b0b0b0"));
        g.setLineWidth(1);
        g.setLineDashes(2, 3);
        g.strokeLine(TIME_W, y, w, y);
        g.setLineDashes();
        if (labels) {
          g.setFill(Color.web("#808080"));
          g.fillText("⋯ " + hidden + " rows not shown", TIME_W + 4, y + 1);
        }
      }
    }
    // messages: every send whose arrow crosses the view
    g.setLineCap(StrokeLineCap.ROUND);
    for (int r = 0; r < rows.size(); r++) {
      Trace.Row row = rows.get(r);
      Trace.Entry e = entries.get(row.entry());
      if (!e.isMessage()) {
        continue;
      }
      int s = sendRow[row.entry()];
      int d = recvRow[row.entry()];
      if (row.receive() ? s >= 0 : false) {
        continue; // drawn from its send row
      }
      int top = s >= 0 ? s : d;
      int bottom = d >= 0 ? d : s;
      if (bottom < first || top > last) {
        continue;
      }
      Color color = row.focus() ? FOCUS : repliesToSession(e) ? REPLY : MESSAGE;
      double xf = lifelineX(e.from());
      double xt = lifelineX(e.to());
      g.setStroke(color);
      g.setFill(color);
      g.setLineWidth(row.focus() ? 2.2 : 1.1);
      if (s >= 0 && d >= 0) {
        arrow(g, xf, rowY(s), xt, rowY(d));
        if (labels && (s >= first && s <= last)) {
          label(g, e.label(), xf, xt, rowY(s), color);
        }
      } else if (s >= 0) { // delivered outside the diagram, or lost
        double dir = Math.signum(xt - xf);
        double xe = xf + dir * colW() * 0.45;
        g.setLineDashes(3, 3);
        arrow(g, xf, rowY(s), xe, rowY(s) + rh * 0.6);
        g.setLineDashes();
        if (labels) {
          String where = e.deliverMicros() == -2 ? " LOST" : e.deliverMicros() == -1 ? " (never delivered)"
              : String.format(" (delivered %.3f ms)", e.deliverMicros() / 1000.0);
          label(g, e.label() + where, xf, xe, rowY(s), color);
        }
      } else { // sent before the diagram starts
        double dir = Math.signum(xf - xt);
        double xs = xt + dir * colW() * 0.45;
        g.setLineDashes(3, 3);
        arrow(g, xs, rowY(d) - rh * 0.6, xt, rowY(d));
        g.setLineDashes();
      }
    }
    // operations and notes
    for (int r = first; r <= last; r++) {
      Trace.Row row = rows.get(r);
      Trace.Entry e = entries.get(row.entry());
      if (e.isMessage()) {
        continue;
      }
      double x = lifelineX(row.process());
      double y = rowY(r);
      double m = Math.max(3, Math.min(6, rh * 0.3));
      Color color = row.focus() ? FOCUS : e.opId() >= 0 ? SESSION : Color.web("#6d4c41");
      g.setFill(color);
      g.setStroke(color);
      g.setLineWidth(2);
      if (e.opId() < 0) { // crash / restart
        g.strokeLine(x - m, y - m, x + m, y + m);
        g.strokeLine(x - m, y + m, x + m, y - m);
      } else if (e.label().startsWith("invoke")) {
        g.fillOval(x - m, y - m, 2 * m, 2 * m);
      } else {
        g.fillRect(x - m, y - m, 2 * m, 2 * m);
      }
      if (labels) {
        String text = row.text();
        g.setFill(Color.color(1, 1, 1, 0.85));
        double tw = Math.min(colW() * 1.6, text.length() * font.getSize() * 0.62);
        g.fillRect(x + m + 3, y - rh * 0.42, tw, rh * 0.84);
        g.setFill(color);
        g.fillText(clip(text, (int) (colW() * 1.6 / (font.getSize() * 0.62))), x + m + 4, y);
      }
    }
    g.restore();
    // time column
    g.setFill(Color.web("#f4f4f4"));
    g.fillRect(0, HEADER, TIME_W - 6, h - HEADER);
    if (labels || rh >= 6) {
      int every = Math.max(1, (int) Math.ceil(13 / rh));
      g.setFill(Color.web("#555555"));
      g.setFont(Font.font("Monospaced", 11));
      for (int r = first; r <= last; r++) {
        if (r % every == 0 || r == sel) {
          double y = rowY(r);
          if (y > HEADER + 4) {
            g.setFill(r == sel ? Color.BLACK : Color.web("#555555"));
            g.fillText(String.format("%10.3f", rows.get(r).micros() / 1000.0), 2, y);
          }
        }
      }
    }
    // header: the processes
    g.setFill(Color.web("#fafafa"));
    g.fillRect(0, 0, w, HEADER);
    g.setStroke(Color.web("#d0d0d0"));
    g.setLineWidth(1);
    g.strokeLine(0, HEADER, w, HEADER);
    g.setFont(Font.font("System", 12));
    g.setFill(Color.web("#555555"));
    g.fillText("t (ms)", 8, HEADER / 2);
    g.setTextAlign(TextAlignment.CENTER);
    for (String p : layout.columns()) {
      double x = lifelineX(p);
      if (x < TIME_W - colW() / 2 || x > w + colW()) {
        continue;
      }
      boolean session = SimRun.isSession(p);
      g.setFill(session ? SESSION : SERVER);
      g.setFont(Font.font("System", javafx.scene.text.FontWeight.BOLD, 13));
      g.fillText(p, x, HEADER / 2 - 7);
      g.setFont(Font.font("System", 10));
      g.setFill(Color.web("#777777"));
      g.fillText(session ? "session" : "server", x, HEADER / 2 + 9);
    }
    g.setTextAlign(TextAlignment.LEFT);
  }

  private static boolean repliesToSession(Trace.Entry e) {
    return SimRun.isSession(e.to());
  }

  private static void arrow(GraphicsContext g, double x1, double y1, double x2, double y2) {
    g.strokeLine(x1, y1, x2, y2);
    double a = Math.atan2(y2 - y1, x2 - x1);
    double len = 8;
    double[] xs = {x2, x2 - len * Math.cos(a - 0.4), x2 - len * Math.cos(a + 0.4)};
    double[] ys = {y2, y2 - len * Math.sin(a - 0.4), y2 - len * Math.sin(a + 0.4)};
    g.fillPolygon(xs, ys, 3);
  }

  private void label(GraphicsContext g, String text, double xf, double xt, double y, Color color) {
    double x = xt >= xf ? xf + 6 : xf - 6;
    g.setFill(color);
    g.setTextAlign(xt >= xf ? TextAlignment.LEFT : TextAlignment.RIGHT);
    g.fillText(clip(text, (int) (colW() * 0.9 / (g.getFont().getSize() * 0.62))), x, y - rowH() * 0.3);
    g.setTextAlign(TextAlignment.LEFT);
  }

  private static String clip(String s, int max) {
    return max < 2 || s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }

  private static double clamp(double v, double lo, double hi) {
    return Math.max(lo, Math.min(hi, v));
  }
}
