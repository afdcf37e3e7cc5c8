package dev.floe.bench;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs a Flink SQL file in a local MiniCluster, the way Flink's SQL client would run it.
 *
 * <pre>
 * FlinkSql [--warehouse DIR] [--catalog NAME] [--parallelism P]
 *          [--checkpoint-interval 10s] [--batch] [--report FILE] job.sql
 * </pre>
 *
 * <p>With --warehouse, Iceberg's JdbcCatalog on floe's SQLite catalog (DIR/catalog.db, catalog
 * name 'floe', schema version V1 so it sees views too) is created and made current before the
 * file runs, with the table data under DIR: the job's two-part names (namespace.table) are then
 * floe's tables. floe creates the catalog database; the catalog is told not to create or check
 * its tables, because Iceberg's check leaves a metadata result set open, and the read lock it
 * holds on SQLite would make every commit from another connection (the sink's) fail with
 * SQLITE_BUSY. The file's statements run in order: SET 'key' = 'value' sets a configuration
 * option (before the first other statement it also reaches the cluster, e.g.
 * execution.runtime-mode), queries (SELECT, SHOW, DESCRIBE) print their rows to stdout as JSON
 * lines, INSERT and EXECUTE STATEMENT SET run a job and wait for it to end (a bounded source
 * ends it; an unbounded one runs until the process is stopped), anything else is executed as
 * is.
 *
 * <p>--report writes what the run measured as one JSON object: events (records the job's
 * sources emitted, from Flink's numRecordsOut of the source operators), the wall times of the
 * first and last source record (sampled every 50 ms by {@link RecordClock}), elapsed_s between
 * them, and each job's net runtime. Peak memory is measured outside, on the process.
 */
public final class FlinkSql {
  private static final Pattern SET =
      Pattern.compile("(?is)^SET\\s+'([^']*)'\\s*=\\s*'((?:[^']|'')*)'$");
  private static final Pattern QUERY =
      Pattern.compile("(?is)^(SELECT|WITH|SHOW|DESCRIBE|DESC|EXPLAIN|VALUES)\\b.*");
  private static final Pattern JOB = Pattern.compile("(?is)^(INSERT|EXECUTE)\\b.*");

  private FlinkSql() {}

  public static void main(String[] args) throws Exception {
    String warehouse = null;
    String catalog = "floe";
    String report = null;
    int parallelism = 1;
    String checkpointInterval = "10s";
    boolean batch = false;
    String file = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--warehouse" -> warehouse = need(args, ++i, a);
        case "--catalog" -> catalog = need(args, ++i, a);
        case "--parallelism" -> parallelism = Integer.parseInt(need(args, ++i, a));
        case "--checkpoint-interval" -> checkpointInterval = need(args, ++i, a);
        case "--report" -> report = need(args, ++i, a);
        case "--batch" -> batch = true;
        default -> {
          if (a.startsWith("--") || file != null) {
            die("unknown argument '" + a + "'");
          }
          file = a;
        }
      }
    }
    if (file == null) {
      die("usage: FlinkSql [--warehouse DIR] [--parallelism P] [--checkpoint-interval 10s]"
          + " [--batch] [--report FILE] job.sql");
    }
    List<String> stmts = split(Files.readString(Path.of(file), StandardCharsets.UTF_8));

    Configuration conf = new Configuration();
    conf.setString("parallelism.default", Integer.toString(parallelism));
    conf.setString("execution.runtime-mode", batch ? "BATCH" : "STREAMING");
    conf.setString("execution.checkpointing.interval", checkpointInterval);
    conf.setString("rest.bind-address", "127.0.0.1");
    conf.setString("rest.address", "127.0.0.1");
    conf.setString("metrics.reporter.clock.factory.class", RecordClock.Factory.class.getName());
    conf.setString("metrics.reporter.clock.interval", "50 ms");
    int first = 0;
    for (; first < stmts.size(); first++) {
      Matcher m = SET.matcher(stmts.get(first));
      if (!m.matches()) {
        break;
      }
      conf.setString(m.group(1), m.group(2).replace("''", "'"));
    }
    batch = conf.getString("execution.runtime-mode", "STREAMING").equalsIgnoreCase("BATCH");

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    EnvironmentSettings settings = EnvironmentSettings.newInstance().withConfiguration(conf).build();
    StreamTableEnvironment tenv = StreamTableEnvironment.create(env, settings);
    if (warehouse != null) {
      Path wh = Path.of(warehouse).toAbsolutePath();
      tenv.executeSql(
          "CREATE CATALOG `"
              + catalog
              + "` WITH ('type' = 'iceberg',"
              + " 'catalog-impl' = 'org.apache.iceberg.jdbc.JdbcCatalog',"
              + " 'uri' = 'jdbc:sqlite:"
              + wh.resolve("catalog.db")
              + "', 'jdbc.schema-version' = 'V1', 'jdbc.init-catalog-tables' = 'false',"
              + " 'warehouse' = 'file://"
              + wh
              + "', 'cache-enabled' = 'false')");
      tenv.useCatalog(catalog);
    }

    List<Long> runtimes = new ArrayList<>();
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    for (int i = first; i < stmts.size(); i++) {
      String st = stmts.get(i);
      Matcher m = SET.matcher(st);
      if (m.matches()) {
        tenv.getConfig().getConfiguration().setString(m.group(1), m.group(2).replace("''", "'"));
        continue;
      }
      TableResult r;
      try {
        r = tenv.executeSql(st);
      } catch (RuntimeException e) {
        throw new IllegalStateException("statement " + (i + 1) + " failed: " + e.getMessage(), e);
      }
      if (JOB.matcher(st).matches()) {
        System.err.println("flink-sql: job " + r.getJobClient().get().getJobID() + " running");
        long t0 = System.nanoTime();
        r.await();
        runtimes.add((System.nanoTime() - t0) / 1_000_000);
      } else if (QUERY.matcher(st).matches()) {
        printRows(out, r);
      }
    }
    out.flush();
    if (report != null) {
      RecordClock.Snapshot s = RecordClock.snapshot();
      StringBuilder b = new StringBuilder();
      b.append("{\"events\": ").append(s.events());
      b.append(", \"first_record_ms\": ").append(s.firstMs());
      b.append(", \"last_record_ms\": ").append(s.lastMs());
      b.append(", \"elapsed_s\": ").append(s.events() > 0 ? (s.lastMs() - s.firstMs()) / 1000.0 : 0);
      b.append(", \"job_runtime_ms\": ").append(runtimes);
      b.append(", \"parallelism\": ").append(parallelism);
      b.append(", \"runtime_mode\": \"").append(batch ? "batch" : "streaming").append("\"}\n");
      Files.writeString(Path.of(report), b.toString(), StandardCharsets.UTF_8);
    }
    // The MiniCluster's threads would keep the JVM alive a while longer.
    System.exit(0);
  }

  private static String need(String[] args, int i, String opt) {
    if (i >= args.length) {
      die(opt + " needs a value");
    }
    return args[i];
  }

  private static void die(String msg) {
    System.err.println("flink-sql: " + msg);
    System.exit(2);
  }

  /**
   * Splits SQL text into statements at semicolons outside quotes, backquotes and comments;
   * comments are dropped and empty statements skipped. EXECUTE STATEMENT SET BEGIN ... END
   * keeps its inner semicolons.
   */
  static List<String> split(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int n = text.length();
    boolean inBlock = false;
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '\'' || c == '`' || c == '"') {
        int j = i + 1;
        while (j < n) {
          if (text.charAt(j) == c) {
            if (j + 1 < n && text.charAt(j + 1) == c) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        cur.append(text, i, Math.min(j + 1, n));
        i = j;
      } else if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
        cur.append('\n');
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 1;
        cur.append(' ');
      } else if (c == ';') {
        String s = cur.toString().trim();
        String up = s.toUpperCase(Locale.ROOT);
        if (up.startsWith("EXECUTE STATEMENT SET") || up.startsWith("BEGIN STATEMENT SET")) {
          inBlock = true;
        }
        if (inBlock && !up.matches("(?s).*\\bEND$")) {
          cur.append(';');
          continue;
        }
        inBlock = false;
        if (!s.isEmpty()) {
          out.add(s);
        }
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    String s = cur.toString().trim();
    if (!s.isEmpty()) {
      out.add(s);
    }
    return out;
  }

  private static void printRows(PrintStream out, TableResult r) throws Exception {
    List<Column> cols = r.getResolvedSchema().getColumns();
    try (CloseableIterator<Row> it = r.collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < cols.size(); i++) {
          if (i > 0) {
            b.append(", ");
          }
          string(b, cols.get(i).getName());
          b.append(": ");
          value(b, row.getField(i), cols.get(i).getDataType().getLogicalType());
        }
        out.println(b.append('}'));
      }
    }
  }

  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TIME_MICROS = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

  /**
   * A value as `floe sql --format jsonl` prints it: timestamps with microseconds (in UTC with
   * " UTC" when they have a zone), decimals as strings, binary as hex, NaN and the infinities as strings.
   */
  static void value(StringBuilder b, Object v, LogicalType t) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long
        || v instanceof Short || v instanceof Byte) {
      b.append(v);
    } else if (v instanceof Float f) {
      number(b, f.isNaN() || f.isInfinite() ? null : Float.toString(f), f.toString());
    } else if (v instanceof Double d) {
      number(b, d.isNaN() || d.isInfinite() ? null : Double.toString(d), d.toString());
    } else if (v instanceof BigDecimal d) {
      string(b, d.toPlainString());
    } else if (v instanceof LocalDateTime ts) {
      string(b, ts.format(MICROS));
    } else if (v instanceof Instant ts) {
      string(b, ts.atOffset(ZoneOffset.UTC).format(MICROS) + " UTC");
    } else if (v instanceof OffsetDateTime ts) {
      string(b, ts.withOffsetSameInstant(ZoneOffset.UTC).format(MICROS) + " UTC");
    } else if (v instanceof LocalDate d) {
      string(b, d.toString());
    } else if (v instanceof LocalTime tm) {
      string(b, tm.format(TIME_MICROS));
    } else if (v instanceof byte[] bytes) {
      StringBuilder h = new StringBuilder();
      for (byte x : bytes) {
        h.append(String.format("%02x", x & 0xff));
      }
      string(b, h.toString());
    } else if (v instanceof Object[] arr) {
      LogicalType et = t instanceof ArrayType at ? at.getElementType() : null;
      b.append('[');
      for (int i = 0; i < arr.length; i++) {
        if (i > 0) {
          b.append(", ");
        }
        value(b, arr[i], et);
      }
      b.append(']');
    } else if (v instanceof Map<?, ?> map) {
      LogicalType vt = t instanceof MapType mt ? mt.getValueType() : null;
      b.append('{');
      boolean firstEntry = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!firstEntry) {
          b.append(", ");
        }
        firstEntry = false;
        string(b, String.valueOf(e.getKey()));
        b.append(": ");
        value(b, e.getValue(), vt);
      }
      b.append('}');
    } else if (v instanceof Row row && t instanceof RowType rt) {
      b.append('{');
      for (int i = 0; i < rt.getFieldCount(); i++) {
        if (i > 0) {
          b.append(", ");
        }
        string(b, rt.getFieldNames().get(i));
        b.append(": ");
        value(b, row.getField(i), rt.getTypeAt(i));
      }
      b.append('}');
    } else if (t != null && t.getTypeRoot() == LogicalTypeRoot.CHAR) {
      string(b, v.toString());
    } else {
      string(b, v.toString());
    }
  }

  private static void number(StringBuilder b, String finite, String special) {
    if (finite == null) {
      string(b, special);
    } else {
      b.append(finite);
    }
  }

  static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
