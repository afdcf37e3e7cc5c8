/*
 * ExprOracle.java - Iceberg Java's inclusive and strict projections as an
 * oracle for tests/interop/test_expr.py: reads one request per line on
 * stdin and answers whether each projection accepts a partition tuple.
 *
 * It sits in package org.apache.iceberg only to reach PartitionSpec's
 * builder method that takes explicit field ids and allows two temporal
 * fields on one source, as specs read from metadata may have.
 *
 * Request: three tab-separated parts, tokens within a part separated by
 * U+001F:
 *   spec   "sourceId:transform" per partition field ("4:day", "1:bucket[8]")
 *   filter prefix tokens: and L R | or L R | not X | true | false |
 *          OP sourceId count value... (OP: lt le gt ge eq ne in notin isnull
 *          notnull sw nsw)
 *   tuple  one token per partition field: N (null) or K:text with K in
 *          L (long), I (int), S (string), D (decimal)
 * Answer: "incl strict" as 0/1, or "ERR message".
 *
 * A line starting "M" asks the metrics evaluators instead:
 *   M <tab> filter <tab> recordCount <tab> columns
 * with one column token "id:valueCount:nullCount:nanCount:lowerHex:upperHex"
 * each (counts empty, bounds "-" for absent); answer "might must". A line
 * starting "S" asks
 * the manifest evaluator of a row filter:
 *   S <tab> spec <tab> filter <tab> summaries
 * with one token "containsNull:containsNaN:lowerHex:upperHex" per spec
 * field (0/1, containsNaN empty and bounds "-" for absent); answer "might".
 * The schema is fixed: 1 v long, 2 s string, 3 d date, 4 t timestamp,
 * 5 m decimal(9,2).
 */
package org.apache.iceberg;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;

public class ExprOracle {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "v", Types.LongType.get()),
          Types.NestedField.optional(2, "s", Types.StringType.get()),
          Types.NestedField.optional(3, "d", Types.DateType.get()),
          Types.NestedField.optional(4, "t", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(5, "m", Types.DecimalType.of(9, 2)));

  static final String SEP = "\u001f";

  static class Tokens {
    final String[] t;
    int i = 0;

    Tokens(String s) {
      t = s.isEmpty() ? new String[0] : s.split(SEP, -1);
    }

    String next() {
      return t[i++];
    }
  }

  static Object value(int sourceId, String text) {
    switch (sourceId) {
      case 1:
      case 4:
        return Long.parseLong(text);
      case 3:
        return Integer.parseInt(text);
      case 5:
        return new BigDecimal(text);
      default:
        return text;
    }
  }

  static Expression parse(Tokens k) {
    String op = k.next();
    switch (op) {
      case "and":
        return Expressions.and(parse(k), parse(k));
      case "or":
        return Expressions.or(parse(k), parse(k));
      case "not":
        return Expressions.not(parse(k));
      case "true":
        return Expressions.alwaysTrue();
      case "false":
        return Expressions.alwaysFalse();
      default:
        break;
    }
    int id = Integer.parseInt(k.next());
    String name = SCHEMA.findField(id).name();
    int n = Integer.parseInt(k.next());
    List<Object> vals = new ArrayList<>();
    for (int j = 0; j < n; j++) vals.add(value(id, k.next()));
    switch (op) {
      case "lt":
        return Expressions.lessThan(name, vals.get(0));
      case "le":
        return Expressions.lessThanOrEqual(name, vals.get(0));
      case "gt":
        return Expressions.greaterThan(name, vals.get(0));
      case "ge":
        return Expressions.greaterThanOrEqual(name, vals.get(0));
      case "eq":
        return Expressions.equal(name, vals.get(0));
      case "ne":
        return Expressions.notEqual(name, vals.get(0));
      case "in":
        return Expressions.in(name, vals.toArray());
      case "notin":
        return Expressions.notIn(name, vals.toArray());
      case "isnull":
        return Expressions.isNull(name);
      case "notnull":
        return Expressions.notNull(name);
      case "sw":
        return Expressions.startsWith(name, (String) vals.get(0));
      case "nsw":
        return Expressions.notStartsWith(name, (String) vals.get(0));
      default:
        throw new IllegalArgumentException("unknown operator " + op);
    }
  }

  static PartitionSpec spec(String text) {
    PartitionSpec.Builder b = PartitionSpec.builderFor(SCHEMA);
    int fieldId = 1000;
    for (String f : text.split(SEP)) {
      String[] parts = f.split(":", 2);
      int src = Integer.parseInt(parts[0]);
      b.add(
          src,
          fieldId,
          "p" + (fieldId - 1000),
          Transforms.fromString(SCHEMA.findType(src), parts[1]));
      fieldId++;
    }
    return b.build();
  }

  static class Tuple implements StructLike {
    final Object[] v;

    Tuple(Object[] v) {
      this.v = v;
    }

    @Override
    public int size() {
      return v.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(v[pos]);
    }

    @Override
    public <T> void set(int pos, T value) {
      v[pos] = value;
    }
  }

  static Tuple tuple(String text) {
    Tokens k = new Tokens(text);
    Object[] v = new Object[k.t.length];
    for (int j = 0; j < v.length; j++) {
      String t = k.next();
      if (t.equals("N")) continue;
      String body = t.substring(2);
      switch (t.charAt(0)) {
        case 'L':
          v[j] = Long.parseLong(body);
          break;
        case 'I':
          v[j] = Integer.parseInt(body);
          break;
        case 'D':
          v[j] = new BigDecimal(body);
          break;
        default:
          v[j] = body;
      }
    }
    return new Tuple(v);
  }

  static ByteBuffer bytes(String hex) {
    if (hex.equals("-")) return null;
    byte[] b = new byte[hex.length() / 2];
    for (int j = 0; j < b.length; j++)
      b[j] = (byte) Integer.parseInt(hex.substring(2 * j, 2 * j + 2), 16);
    return ByteBuffer.wrap(b);
  }

  static Long count(String text) {
    return text.isEmpty() ? null : Long.parseLong(text);
  }

  /* A data file carrying only what the metrics evaluators read. */
  static DataFile dataFile(long records, String columns) {
    Map<Integer, Long> vc = new HashMap<>(), nc = new HashMap<>(), nanc = new HashMap<>();
    Map<Integer, ByteBuffer> lo = new HashMap<>(), hi = new HashMap<>();
    for (String c : new Tokens(columns).t) {
      String[] f = c.split(":", -1);
      int id = Integer.parseInt(f[0]);
      if (count(f[1]) != null) vc.put(id, count(f[1]));
      if (count(f[2]) != null) nc.put(id, count(f[2]));
      if (count(f[3]) != null) nanc.put(id, count(f[3]));
      if (bytes(f[4]) != null) lo.put(id, bytes(f[4]));
      if (bytes(f[5]) != null) hi.put(id, bytes(f[5]));
    }
    return (DataFile)
        Proxy.newProxyInstance(
            DataFile.class.getClassLoader(),
            new Class<?>[] {DataFile.class},
            (proxy, method, margs) -> {
              switch (method.getName()) {
                case "recordCount":
                  return records;
                case "valueCounts":
                  return vc;
                case "nullValueCounts":
                  return nc;
                case "nanValueCounts":
                  return nanc;
                case "lowerBounds":
                  return lo;
                case "upperBounds":
                  return hi;
                case "content":
                  return FileContent.DATA;
                case "specId":
                  return 0;
                default:
                  return null;
              }
            });
  }

  static ManifestFile.PartitionFieldSummary summary(String token) {
    String[] f = token.split(":", -1);
    return (ManifestFile.PartitionFieldSummary)
        Proxy.newProxyInstance(
            ManifestFile.class.getClassLoader(),
            new Class<?>[] {ManifestFile.PartitionFieldSummary.class},
            (proxy, method, margs) -> {
              switch (method.getName()) {
                case "containsNull":
                  return f[0].equals("1");
                case "containsNaN":
                  return f[1].isEmpty() ? null : f[1].equals("1");
                case "lowerBound":
                  return bytes(f[2]);
                case "upperBound":
                  return bytes(f[3]);
                default:
                  return null;
              }
            });
  }

  static ManifestFile manifest(String summaries) {
    List<ManifestFile.PartitionFieldSummary> parts = new ArrayList<>();
    for (String t : new Tokens(summaries).t) parts.add(summary(t));
    return (ManifestFile)
        Proxy.newProxyInstance(
            ManifestFile.class.getClassLoader(),
            new Class<?>[] {ManifestFile.class},
            (proxy, method, margs) -> {
              switch (method.getName()) {
                case "partitions":
                  return parts;
                case "partitionSpecId":
                  return 0;
                case "content":
                  return ManifestContent.DATA;
                case "hasAddedFiles":
                case "hasExistingFiles":
                  return true;
                case "hasDeletedFiles":
                  return false;
                default:
                  return null;
              }
            });
  }

  static String answer(String line) {
    String[] parts = line.split("\t", -1);
    if (parts[0].equals("M")) {
      Expression e = parse(new Tokens(parts[1]));
      DataFile f = dataFile(Long.parseLong(parts[2]), parts[3]);
      boolean might = new InclusiveMetricsEvaluator(SCHEMA, e).eval(f);
      boolean must = new StrictMetricsEvaluator(SCHEMA, e).eval(f);
      return (might ? "1" : "0") + " " + (must ? "1" : "0");
    }
    if (parts[0].equals("S")) {
      PartitionSpec spec = spec(parts[1]);
      Expression e = parse(new Tokens(parts[2]));
      return ManifestEvaluator.forRowFilter(e, spec, true).eval(manifest(parts[3])) ? "1" : "0";
    }
    PartitionSpec spec = spec(parts[0]);
    Expression e = parse(new Tokens(parts[1]));
    Types.StructType pt = spec.partitionType();
    Tuple t = tuple(parts[2]);
    boolean incl = new Evaluator(pt, Projections.inclusive(spec).project(e)).eval(t);
    boolean strict = new Evaluator(pt, Projections.strict(spec).project(e)).eval(t);
    return (incl ? "1" : "0") + " " + (strict ? "1" : "0");
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      try {
        out.println(answer(line));
      } catch (Exception ex) {
        out.println("ERR " + ex.toString().replace('\n', ' '));
      }
    }
  }
}
