package dev.floe.bench;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.metrics.reporter.Scheduled;

/**
 * A metric reporter that clocks the sources of the jobs in this JVM: every report interval it
 * adds up numRecordsOut of the source operators (operator name "Source: ..."), and notes the
 * wall time at which the sum first became positive and at which it last grew. Those two
 * instants bound the processing of the input to within one interval, independent of the JVM's
 * start, planning and job deployment before it and of the final commit after it.
 *
 * <p>A counter that is unregistered (its task ended) leaves its last value in the total, so
 * records of finished subtasks are not lost. The MiniCluster runs in the same JVM as FlinkSql,
 * so the totals are plain static state.
 */
public final class RecordClock implements MetricReporter, Scheduled {
  record Snapshot(long events, long firstMs, long lastMs) {}

  private static final Object LOCK = new Object();
  private static final Map<Counter, Long> LIVE = new HashMap<>();
  private static long finished;
  private static long total;
  private static long firstMs;
  private static long lastMs;

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {
    report();
  }

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    if (!(metric instanceof Counter c) || !name.equals("numRecordsOut")) {
      return;
    }
    String op = group.getAllVariables().get("<operator_name>");
    if (op == null || !op.startsWith("Source")) {
      return;
    }
    synchronized (LOCK) {
      LIVE.put(c, 0L);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    synchronized (LOCK) {
      if (metric instanceof Counter c && LIVE.containsKey(c)) {
        LIVE.remove(c);
        finished += c.getCount();
        update();
      }
    }
  }

  @Override
  public void report() {
    synchronized (LOCK) {
      update();
    }
  }

  private static void update() {
    long sum = finished;
    for (Counter c : LIVE.keySet()) {
      sum += c.getCount();
    }
    long now = System.currentTimeMillis();
    if (sum > 0 && firstMs == 0) {
      firstMs = now;
    }
    if (sum > total) {
      total = sum;
      lastMs = now;
    }
  }

  static Snapshot snapshot() {
    synchronized (LOCK) {
      update();
      return new Snapshot(total, firstMs, lastMs);
    }
  }

  /** Named by metrics.reporter.clock.factory.class; found through META-INF/services. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(java.util.Properties properties) {
      return new RecordClock();
    }
  }
}
