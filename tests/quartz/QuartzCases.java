// Generates tests/quartz/cases.tsv: ground truth from the real Quartz 2.3.2
// CronExpression (Debian libquartz2-java) for gnomon's cron agreement test.
// See README.md in this directory for how to run it and the file format.
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicReference;
import org.quartz.CronExpression;

public class QuartzCases {
  static final int FIRES = 5;
  // Fires this close to a DST transition (either side) are left out: gnomon's
  // DST policy deliberately differs from Quartz there.
  static final long MARGIN_MS = 3L * 3600 * 1000;
  static final String[] ZONES = {
    "UTC", "UTC", "UTC", "Asia/Tokyo", "Asia/Kolkata", "Asia/Kathmandu",
    "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Chatham",
    "America/Sao_Paulo",
  };
  static final String[] MONTHS = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL",
                                  "AUG", "SEP", "OCT", "NOV", "DEC"};
  static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  final Random rnd = new Random(20240601L);
  final PrintStream out;
  int accepted, rejected, lenient, hung;

  QuartzCases(PrintStream out) { this.out = out; }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(args.length > 0 ? args[0] : "cases.tsv", "UTF-8");
    QuartzCases g = new QuartzCases(out);
    out.println("# Ground truth from Quartz 2.3.2 CronExpression; regenerate with tests/quartz/README.md.");
    out.println("# max_year\t" + (java.util.Calendar.getInstance().get(java.util.Calendar.YEAR) + 100));
    out.println("# A expr zone from_ms fires  (well-formed: gnomon must accept and agree)");
    out.println("# L expr zone from_ms fires  (Quartz accepts: gnomon may reject, else must agree)");
    out.println("# R expr message             (Quartz rejects: gnomon must reject)");
    out.println("# fires: comma-separated epoch ms, then ',none' if Quartz returned null,");
    out.println("#        or ',cut' if the rest is near a DST transition (not compared)");
    g.handPicked();
    for (int i = 0; i < 7000; i++) g.emit("A", g.randomExpr(), g.randomZone(), g.randomFrom());
    for (int i = 0; i < 2500; i++) g.emit("L", g.mutate(g.randomExpr()), g.randomZone(), g.randomFrom());
    out.close();
    System.err.printf("accepted %d, rejected %d, lenient %d, hung %d%n",
                      g.accepted, g.rejected, g.lenient, g.hung);
    System.exit(0);
  }

  // ---- expressions ------------------------------------------------------

  int r(int lo, int hi) { return lo + rnd.nextInt(hi - lo + 1); }
  boolean p(double prob) { return rnd.nextDouble() < prob; }
  String cased(String s) { return p(0.2) ? s.toLowerCase() : s; }

  String value(int lo, int hi, String[] names) {
    int v = r(lo, hi);
    return names != null && p(0.5) ? cased(names[v - lo]) : Integer.toString(v);
  }

  // One list item over [lo, hi]; steps only on numbers (Quartz ignores them
  // after names).
  String item(int lo, int hi, String[] names, int maxStep) {
    int k = r(0, 9);
    if (k <= 3) return value(lo, hi, names);
    int a = r(lo, hi), b = r(lo, hi);  // may wrap when a > b
    boolean named = names != null && p(0.5);
    String sa = named ? cased(names[a - lo]) : Integer.toString(a);
    String sb = named ? cased(names[b - lo]) : Integer.toString(b);
    if (k <= 6 || named) return sa + "-" + sb;
    int step = r(1, Math.min(maxStep, Math.max(2, (hi - lo) / 2)));
    if (k == 7) return "*/" + step;
    if (k == 8) return a + "/" + step;
    return a + "-" + b + "/" + step;
  }

  String field(int lo, int hi, String[] names, int maxStep, double pStar, double pSingle) {
    if (p(pStar)) return "*";
    if (p(pSingle)) return value(lo, hi, names);
    int n = r(1, 3);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) sb.append(',');
      sb.append(item(lo, hi, names, maxStep));
    }
    return sb.toString();
  }

  String dom() {
    int k = r(0, 19);
    if (k == 0) return cased("L");
    if (k == 1) return cased("L-") + r(0, 30);
    if (k == 2) return cased("LW");
    if (k == 3) return (p(0.5) ? r(27, 31) : r(1, 31)) + cased("W");
    if (k == 4) return r(28, 31) + "";
    return field(1, 31, null, 31, 0.25, 0.3);
  }

  String dow() {
    int k = r(0, 11);
    if (k == 0) return cased("L");
    if (k == 1) return value(1, 7, DAYS) + cased("L");
    if (k == 2) return value(1, 7, DAYS) + "#" + r(1, 5);
    return field(1, 7, DAYS, 7, 0.2, 0.3);
  }

  String year() {
    int k = r(0, 5);
    if (k == 0) return "*";
    if (k == 1) return "" + r(1990, 2130);
    if (k == 2) { int a = r(1990, 2120); return a + "-" + (a + r(0, 20)); }
    if (k == 3) return r(1970, 2100) + "/" + r(1, 30);
    if (k == 4) return r(1990, 2126) + "," + r(2000, 2126);
    return "*/" + r(1, 60);
  }

  String randomExpr() {
    String sec = p(0.5) ? "0" : field(0, 59, null, 59, 0.15, 0.3);
    String min = p(0.3) ? "0" : field(0, 59, null, 59, 0.2, 0.3);
    String hr = p(0.2) ? "0" : field(0, 23, null, 23, 0.25, 0.35);
    boolean domSpec = p(0.5);
    String dm = domSpec ? dom() : "?";
    String mon = field(1, 12, MONTHS, 12, 0.55, 0.2);
    String dw = domSpec ? "?" : dow();
    String e = sec + " " + min + " " + hr + " " + dm + " " + mon + " " + dw;
    if (p(0.25)) e += " " + year();
    return e;
  }

  // Random edits that make mostly malformed text.
  String mutate(String e) {
    final String alphabet = "0123456789*?-,/LW#ABCDEFJMNOSTUVYRH!.x ";
    StringBuilder sb = new StringBuilder(e);
    int edits = r(1, 3);
    for (int i = 0; i < edits; i++) {
      int pos = r(0, sb.length());
      char c = alphabet.charAt(r(0, alphabet.length() - 1));
      int kind = r(0, 2);
      if (kind == 0 || sb.length() == 0) sb.insert(pos, c);
      else if (kind == 1 && pos < sb.length()) sb.setCharAt(pos, c);
      else if (pos < sb.length()) sb.deleteCharAt(pos);
    }
    return sb.toString().trim();
  }

  String randomZone() { return ZONES[rnd.nextInt(ZONES.length)]; }

  long randomFrom() {
    int k = r(0, 19);
    long lo, hi;
    if (k == 0) { lo = ms(2120); hi = ms(2127); }       // around the year limit
    else if (k <= 2) { lo = ms(1971); hi = ms(2000); }
    else { lo = ms(2000); hi = ms(2100); }
    long t = lo + (long) (rnd.nextDouble() * (hi - lo));
    if (p(0.5)) t -= t % 1000;  // whole seconds half the time
    return t;
  }

  static long ms(int year) {
    return java.time.LocalDate.of(year, 1, 1).atStartOfDay(java.time.ZoneOffset.UTC)
        .toInstant().toEpochMilli();
  }

  // ---- Quartz ---------------------------------------------------------

  // Runs Quartz with a time limit: it loops forever on a few inputs.
  Object quartz(String expr, String zone, long from) throws Exception {
    AtomicReference<Object> result = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        CronExpression c = new CronExpression(expr);
        c.setTimeZone(TimeZone.getTimeZone(zone));
        List<Long> fires = new ArrayList<>();
        Date d = new Date(from);
        for (int i = 0; i < FIRES; i++) {
          d = c.getTimeAfter(d);
          if (d == null) { fires.add(null); break; }
          fires.add(d.getTime());
        }
        result.set(fires);
      } catch (Exception ex) {
        result.set(ex.getMessage() == null ? ex.toString() : ex.getMessage());
      }
    });
    t.setDaemon(true);
    t.start();
    t.join(5000);
    if (t.isAlive()) {
      t.stop();  // deprecated, still works on Java 17; the thread spins forever otherwise
      return null;
    }
    return result.get();
  }

  void emit(String kind, String expr, String zone, long from) throws Exception {
    if (expr.isEmpty() || expr.contains("\t")) return;
    ZoneRules rules = ZoneId.of(zone).getRules();
    if (!rules.isFixedOffset()) {
      ZoneOffsetTransition prev = rules.previousTransition(Instant.ofEpochMilli(from + 1));
      if (prev != null && from < prev.toEpochSecond() * 1000 + MARGIN_MS) {
        from = prev.toEpochSecond() * 1000 + MARGIN_MS;
      }
    }
    Object q = quartz(expr, zone, from);
    if (q == null) { hung++; return; }
    if (q instanceof String) {
      rejected++;
      if (kind.equals("A")) System.err.println("well-formed but rejected: " + expr + " : " + q);
      out.println("R\t" + expr + "\t" + ((String) q).replace('\t', ' ').replace('\n', ' '));
      return;
    }
    @SuppressWarnings("unchecked") List<Long> fires = (List<Long>) q;
    long cut = Long.MAX_VALUE;
    if (!rules.isFixedOffset()) {
      ZoneOffsetTransition next = rules.nextTransition(Instant.ofEpochMilli(from));
      if (next != null) cut = next.toEpochSecond() * 1000 - MARGIN_MS;
    }
    StringBuilder sb = new StringBuilder();
    for (Long f : fires) {
      if (sb.length() > 0) sb.append(',');
      if (f == null) { sb.append(cut == Long.MAX_VALUE ? "none" : "cut"); break; }
      if (f >= cut) { sb.append("cut"); break; }
      sb.append(f);
    }
    if (kind.equals("A")) accepted++; else lenient++;
    out.println(kind + "\t" + expr + "\t" + zone + "\t" + from + "\t" + sb);
  }

  // ---- hand-picked --------------------------------------------------------

  void handPicked() throws Exception {
    String[] well = {
      "*/5 * * * * ?", "0 0/5 14,18 * * ?", "0 0 9-17 ? * MON-FRI", "0 0 12 L-3 * ?",
      "0 15 10 ? * 6#3", "0 15 10 ? * 6L", "0 15 10 L * ?", "0 15 10 LW * ?", "0 0 0 LW * ?",
      "0 0 0 1W * ?", "0 0 0 15W * ?", "0 0 0 28W * ?", "0 0 0 29W * ?", "0 0 0 30W * ?",
      "0 0 0 31W * ?", "0 0 0 31W 2 ?", "0 0 0 31W 4 ?", "0 0 0 30W 2 ?", "0 0 0 L-0 * ?",
      "0 0 0 L-30 * ?", "0 0 0 L-28 * ?", "0 0 0 L-29 * ?", "0 0 22-2 * * ?", "0 0 22-2/2 * * ?",
      "0 0 0 28-2 * ?", "0 0 0 28-2/3 * ?", "0 0 0 1 NOV-FEB ?", "0 0 0 ? * FRI-MON",
      "0 0 0 ? * SAT-SUN", "0 0 0 ? * 7-1", "50-10/5 * * * * ?", "0 50-10 * * * ?",
      "0 0 0 ? * 5#5", "0 0 0 ? * 1#5", "0 0 0 ? 2 5#5", "0 0 0 ? 2 1#5", "0 0 0 29 2 ?",
      "0 0 0 30 2 ?", "0 0 0 31 4,6,9,11 ?", "0 0 0 1 1 ? 2020", "0 0 0 1 1 ? 2030",
      "0 0 0 * * ? 2126", "0 0 0 * * ? 2127", "0 0 0 1 1 ? 2100-2200", "* * * * * ?",
      "0 0 0 1 1 ? *", "0 0 12 ? * L", "0 0 12 ? * 1L", "0 0 12 ? * 7L", "0 0 12 ? * SUNL",
      "0 0 12 ? * sat#1", "0 0 12 ? jan-mar mon,wed,fri", "59 59 23 31 12 ? *",
      "0 0 0 29 2 ? 2100", "0 0 0 29 2 ? 2096", "0 0 0 ? * 2#1 2030/5", "0 0 0 1/31 * ?",
      "0/59 * * * * ?", "0 0 0/23 * * ?", "0 0 0 1 1/12 ?", "0 0 0 ? * 1/7", "0 0 0 ? * */2",
      "0 0 0 */5 * ?", "0 0 */5 * * ?", "0 0 0 1 */5 ?", "0 0 0 1 1 ? */100", "0 0 0 1 1 ? 1970/100",
      "0 0 0 1 1 ? 2021-2030/3", "05 00 00 1 1 ? 2030", "0 0 0 lw * ?", "0 0 0 1w * ?",
      "0 0 0 ? * l", "0 0 0 ? * fri#2", "0 0 0 ? * FRIL", "0 0 0 ? 1 1,2-3,SAT",
      "0 0 0 1-3,5 1 ?", "0 0 0 31 * ?", "0 0 0 30,31 * ?", "0 30 2 * * ?", "0 45 2 * * ?",
      // L-nW: the weekday nearest to the last day minus n (never leaving the
      // month). Quartz loops forever when L-n is before the 1st (L-28W in a
      // 28-day February); such cases are dropped as hung.
      "0 0 0 L-3W * ?", "0 15 10 L-1W * ?", "0 0 0 L-2W * ?", "0 0 0 l-5w * ?", "0 0 0 L-0W * ?",
      "0 0 0 L-27W 2 ?", "0 0 0 L-28W 2 ?", "0 0 0 L-29W 1,3 ?", "0 0 0 L-30W 1,3,5,7,8,10,12 ?",
      "0 0 12 L-14W * ?", "0 0 0 L-3W 2 ? 2024-2032",
    };
    String[] zones = {"UTC", "Asia/Tokyo", "Europe/Berlin", "America/New_York"};
    long[] froms = {ms(2021), ms(2024) + 1234567, ms(2026) + 86399999L, ms(2099) + 4000000000L,
                    ms(2126) - 86400000L, ms(2126) + 31449600000L};
    for (String e : well) {
      for (String z : zones) {
        for (long f : froms) emit("A", e, z, f);
      }
    }
    String[] quartzRejects = {
      "0 0 0 * * *", "0 0 0 ? * ?", "0 0 ? * * ?", "0 0 0 L,15 * ?", "0 0 0 ? * 2L,3",
      "0 0 0 ? * MON-5", "0 0 0 ? * 2-FRI", "0 0 0 ? * 0", "0 0 0 ? * 8", "0 0 0 ? * 6#6",
      "0 0 0 ? * 6#0", "0/60 * * * * ?", "0 0 0/24 * * ?", "0 0 0 1/32 * ?", "0 0 0 1 1/13 ?",
      "0 0 0 ? * 1/8", "0 0 0 L-31 * ?", "0 0 0 0 * ?", "0 0 0 32 * ?", "0 0 0 W * ?",
      "0 0 0 LW-2 * ?", "0 0 0 ? * L#2", "0 0 24 * * ?", "60 * * * * ?", "0 0 0 1 0 ?",
      "0 0 0 1 13 ?", "+1 * * * * ?", "1- * * * * ?", "-1 * * * * ?", "1-* * * * * ?",
      "*/5/2 * * * * ?", "1/2-3 * * * * ?", "0 0 0 1 1 ? 2030-2025", "0 0 0 ? * L/2",
      "0 0 0 ? * 0L", "0 0 0 ? * 8L", "0 0 12 * *", "", "0 0 12 * * ? 2030 extra more",
      "0 0 0 ? * SUNDAY", "0 0 0 1 JANUARY ?",
    };
    for (String e : quartzRejects) emit("L", e, "UTC", ms(2024));
    // Quartz accepts these by accident; gnomon rejects them (see cron_test.cc).
    String[] lenientOnes = {
      "12abc * * * * ?", "0 0 12 ? * MON!", "0 1.5 * * * ?", "0 0 0 15W,16 * ?", "0 0 0 1-5W * ?",
      "0 0 0 ? * 5#2,6", "0 0 0 ? * 7L-2", "0 0 0 ? * 1-3L", "0 0 0 ? * L-2",
      "0 0 0 ? * MON-FRI/2", "0 0 0 1 FEB-OCT/3 ?", "0 0 0 ? * MON/2", "0 0 0 1 * ?,MON",
      "0 0 0 1 * ??", "/5 * * * * ?", "0/0 * * * * ?", "1,,2 * * * * ?", "*,1 * * * * ?",
      "*-5 * * * * ?", "0 0 0 1 1 ? 0", "0 0 0 1 1 ? 99", "0 0 0 1 1 ? 2021 extra",
      "0 0 0 1 1 ? 2022/0", "0 0 0 1 1 ? 1969", "0 0 0 1 1 ? 3000",
    };
    for (String e : lenientOnes) emit("L", e, "UTC", ms(2024));
  }
}
