import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;

/**
 * anonkit's harness for ARX's warm anonymize() call (issue 30), driven by benchmarks/bench_warm_call.py: our
 * code calling ARX's public API.
 *
 * Usage: java -cp ARX_CLASSES:ARX_JARS:. ArxCallBench DATA_DIR CONFIG REPETITIONS MODE
 *   DATA_DIR  Adult (adult.csv) and its hierarchies (adult_hierarchy_ATTRIBUTE.csv), ';'-separated
 *   CONFIG    K5_8QI_S0 | K5_8QI_S2 | K5_9QI_S0 | K5_9QI_S2 | KLT_S0 | KLT_S2 (as ArxBenchFile's)
 *   MODE      same: every call on one Data object, parsed once before the first call (ARX's handle keeps
 *                   its dictionary of the texts between calls);
 *             new:  every call on a new Data object built from the same in-memory text rows, so that the
 *                   timed call encodes the texts (the counterpart of anonkit's call on a new DataFrame);
 *                   the Hierarchy objects, read once, are reused;
 *             shuffled: as new, the records in another order every call (java.util.Random seeded with the
 *                   call's number; the lines shuffled and split into new strings, untimed).
 *
 * Timed: from the Data's creation (new) or the configuration (same) to anonymize()'s return. Prints, for
 * every call, in microseconds: the calling thread's CPU time (ThreadMXBean), the whole JVM's CPU time
 * (every thread's: the garbage collector's and the JIT compiler's included, as a Python process's CPU time
 * includes freeing its objects) and the wall time; then the optimum and its Loss.
 */
public class ArxCallBench {

    static final String[] ALL = {"sex", "age", "race", "marital-status", "education", "native-country",
                                 "workclass", "occupation", "salary-class"};

    public static void main(String[] args) throws Exception {
        String dir = args[0], name = args[1];
        int reps = Integer.parseInt(args[2]);
        boolean shuffled = args[3].equals("shuffled"), fresh = shuffled || args[3].equals("new");
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(dir, "adult.csv"), StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) lines.add(line);
        }
        List<String[]> rows = split(lines);
        Set<String> qis = new LinkedHashSet<>(Arrays.asList(ALL));
        boolean klt = name.startsWith("KLT");
        if (name.contains("8QI")) qis.remove("salary-class");
        String sensitive = klt ? "occupation" : null;
        if (klt) qis.remove("occupation");
        double suppression = name.endsWith("S2") ? 0.02d : 0.0d;
        Map<String, Hierarchy> hierarchies = new HashMap<>();
        for (String a : qis) {
            hierarchies.put(a, Hierarchy.create(dir + "/adult_hierarchy_" + a + ".csv", StandardCharsets.UTF_8, ';'));
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Data kept = fresh ? null : define(Data.create(rows), qis, sensitive, hierarchies);
        if (kept != null) kept.getHandle();  // parsed once, untimed
        List<Long> cpu = new ArrayList<>(), process = new ArrayList<>(), wall = new ArrayList<>();
        ARXResult result = null;
        for (int r = 0; r < reps; r++) {
            if (kept != null) kept.getHandle().release();
            List<String[]> input = rows;
            if (shuffled) {  // split anew in the new order: new strings, laid out as a file read lays them
                List<String> records = new ArrayList<>(lines.subList(1, lines.size()));
                Collections.shuffle(records, new Random(r));
                records.add(0, lines.get(0));
                input = split(records);
            }
            long c0 = threads.getCurrentThreadCpuTime(), p0 = os.getProcessCpuTime(), t0 = System.nanoTime();
            Data data = kept != null ? kept : define(Data.create(input), qis, sensitive, hierarchies);
            ARXConfiguration config = ARXConfiguration.create();  // default quality model: Loss (gs 0.5, geometric mean)
            config.setSuppressionLimit(suppression);
            config.addPrivacyModel(new KAnonymity(5));
            if (klt) {
                config.addPrivacyModel(new DistinctLDiversity(sensitive, 3));
                config.addPrivacyModel(new EqualDistanceTCloseness(sensitive, 0.2d));
            }
            result = new ARXAnonymizer().anonymize(data, config);
            wall.add((System.nanoTime() - t0) / 1000);
            cpu.add((threads.getCurrentThreadCpuTime() - c0) / 1000);
            process.add((os.getProcessCpuTime() - p0) / 1000);
        }
        System.out.println("cpuUs=" + cpu);
        System.out.println("processCpuUs=" + process);
        System.out.println("wallUs=" + wall);
        ARXLattice.ARXNode optimum = result.getGlobalOptimum();
        System.out.println("optimum=" + (optimum == null ? "none" : Arrays.toString(optimum.getTransformation())));
        System.out.println("loss=" + (optimum == null ? "none" : optimum.getHighestScore()));
    }

    static List<String[]> split(List<String> lines) {
        List<String[]> rows = new ArrayList<>(lines.size());
        for (String line : lines) rows.add(line.split(";", -1));
        return rows;
    }

    static Data define(Data data, Set<String> qis, String sensitive, Map<String, Hierarchy> hierarchies) {
        for (String a : ALL) {
            if (qis.contains(a)) {
                data.getDefinition().setAttributeType(a, hierarchies.get(a));
            } else if (a.equals(sensitive)) {
                data.getDefinition().setAttributeType(a, AttributeType.SENSITIVE_ATTRIBUTE);
            } else {
                data.getDefinition().setAttributeType(a, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        return data;
    }
}
