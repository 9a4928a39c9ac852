import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;

/**
 * anonkit's benchmark harness for ARX's population and risk criteria (issue 27): our code calling ARX's
 * public API, driven by benchmarks/bench_criteria.py, which passes every parameter of a configuration so
 * that both sides run the same one.
 *
 * Usage: java -cp ARX_CLASSES:ARX_JARS:. ArxCriteriaBench DATA_DIR FILE REPETITIONS key=value...
 *   DATA_DIR  Adult's hierarchies (adult_hierarchy_ATTRIBUTE.csv, ';')
 *   FILE      a ';'-separated file with Adult's columns (Adult, or Adult replicated)
 *   keys      model = k-map | estimated-k-map | delta-presence | average-risk | sample-uniqueness
 *                     | population-uniqueness | profitability
 *             suppression (share), metric = loss | aecs | entropy | entropy-nm (default loss: ARX's default,
 *             gs 0.5, geometric mean), subset = a file of 0-based row indices of FILE (one per line),
 *             k, population, estimator = poisson | zero-truncated-poisson, significance, dmin, dmax,
 *             threshold, highest_risk, records_at_risk, pu_model = dankar | pitman | zayatz | snb,
 *             iterations, attacker = journalist | prosecutor, attack = true | false,
 *             adversary_cost, adversary_gain, publisher_loss, publisher_benefit
 *
 * The eight quasi-identifiers are Adult's columns but occupation (insensitive: no criterion reads it).
 * Prints one line per run (wall and process CPU time of anonymize(), the optimum, its Loss string, the
 * suppressed rows of the research subset), then the runs' times as lists.
 */
public class ArxCriteriaBench {

    static final String[] ALL = {"sex", "age", "race", "marital-status", "education", "native-country",
                                 "workclass", "occupation", "salary-class"};
    static final String NOT_QI = "occupation";

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ArxCriteriaBench DATA_DIR FILE REPETITIONS key=value...");
            System.exit(2);
        }
        String dir = args[0];
        String file = args[1];
        int reps = Integer.parseInt(args[2]);
        Map<String, String> p = new LinkedHashMap<>();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("not key=value: " + args[i]);
            p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }

        long t0 = System.nanoTime();
        Data data = Data.create(file, StandardCharsets.UTF_8, ';');
        for (String a : ALL) {
            if (a.equals(NOT_QI)) {
                data.getDefinition().setAttributeType(a, AttributeType.INSENSITIVE_ATTRIBUTE);
            } else {
                data.getDefinition().setAttributeType(a, Hierarchy.create(dir + "/adult_hierarchy_" + a + ".csv",
                                                                           StandardCharsets.UTF_8, ';'));
            }
        }
        int rows = data.getHandle().getNumRows();
        DataSubset subset = p.containsKey("subset") ? DataSubset.create(data, readRows(p.get("subset"), rows)) : null;
        System.out.println("loadMs=" + (System.nanoTime() - t0) / 1000000 + " rows=" + rows
                           + " subsetRows=" + (subset == null ? -1 : subset.getSet().size()) + " config=" + p);

        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        List<Double> wall = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (int r = 0; r < reps; r++) {
            data.getHandle().release();
            ARXConfiguration config = configuration(p, subset);
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long c = os.getProcessCpuTime();
            long w = System.nanoTime();
            ARXResult result = anonymizer.anonymize(data, config);
            wall.add((System.nanoTime() - w) / 1e6);
            cpu.add((os.getProcessCpuTime() - c) / 1e6);
            ARXLattice.ARXNode opt = result.getGlobalOptimum();
            String line = String.format(Locale.ROOT, "run=%d wallMs=%.3f cpuMs=%.3f", r + 1, wall.get(r), cpu.get(r));
            if (opt == null) {
                System.out.println(line + " optimum=none");
                continue;
            }
            System.out.println(line + " optimum=" + Arrays.toString(opt.getTransformation()).replace(" ", "")
                               + " loss=" + opt.getHighestScore() + " suppressed=" + suppressed(result, opt)
                               + " checked=" + result.getProcessStatistics().getTransformationsChecked());
        }
        System.out.println("wallMsPerRun=" + wall);
        System.out.println("cpuMsPerRun=" + cpu);
    }

    /** The research subset's rows (0-based indices of FILE), refused when one is outside the file. */
    static Set<Integer> readRows(String path, int rows) throws IOException {
        Set<Integer> out = new TreeSet<>();
        for (String s : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
            if (s.isBlank()) continue;
            int i = Integer.parseInt(s.trim());
            if (i < 0 || i >= rows) throw new IllegalArgumentException("subset row " + i + " outside 0.." + (rows - 1));
            out.add(i);
        }
        return out;
    }

    /** Suppressed records of the research subset (all records without a subset) in the optimum's output. */
    static int suppressed(ARXResult result, ARXLattice.ARXNode opt) {
        DataHandle out = result.getOutput(opt, false);
        DataHandle view = out.getView();
        int n = 0;
        for (int i = 0; i < view.getNumRows(); i++) if (view.isOutlier(i)) n++;
        out.release();
        return n;
    }

    static double num(Map<String, String> p, String key) {
        String v = p.get(key);
        if (v == null) throw new IllegalArgumentException("missing " + key);
        return Double.parseDouble(v);
    }

    static ARXConfiguration configuration(Map<String, String> p, DataSubset subset) {
        ARXConfiguration config = ARXConfiguration.create(num(p, "suppression"), metric(p.getOrDefault("metric", "loss")));
        String model = p.get("model");
        switch (model == null ? "" : model) {
        case "k-map":
            config.addPrivacyModel(new KMap((int) num(p, "k"), need(subset)));
            break;
        case "estimated-k-map":
            config.addPrivacyModel(new KMap((int) num(p, "k"), num(p, "significance"),
                                            ARXPopulationModel.create((long) num(p, "population")),
                                            "poisson".equals(p.get("estimator")) ? KMap.CellSizeEstimator.POISSON
                                                : KMap.CellSizeEstimator.ZERO_TRUNCATED_POISSON));
            break;
        case "delta-presence":
            config.addPrivacyModel(new DPresence(num(p, "dmin"), num(p, "dmax"), need(subset)));
            break;
        case "average-risk":
            config.addPrivacyModel(new AverageReidentificationRisk(num(p, "threshold"),
                                                                   Double.parseDouble(p.getOrDefault("highest_risk", "1")),
                                                                   Double.parseDouble(p.getOrDefault("records_at_risk", "0"))));
            break;
        case "sample-uniqueness":
            config.addPrivacyModel(new SampleUniqueness(num(p, "threshold")));
            break;
        case "population-uniqueness":
            config.addPrivacyModel(new PopulationUniqueness(num(p, "threshold"),
                                                            PopulationUniquenessModel.valueOf(p.get("pu_model").toUpperCase(Locale.ROOT)),
                                                            ARXPopulationModel.create((long) num(p, "population")),
                                                            ARXSolverConfiguration.create().setDeterministic(true)
                                                                .iterationsPerTry((int) num(p, "iterations"))));
            break;
        case "profitability":
            boolean journalist = "journalist".equals(p.get("attacker"));
            boolean attack = !"false".equals(p.get("attack"));
            config.addPrivacyModel(journalist
                ? (attack ? new ProfitabilityJournalist(need(subset)) : new ProfitabilityJournalistNoAttack(need(subset)))
                : (attack ? new ProfitabilityProsecutor() : new ProfitabilityProsecutorNoAttack()));
            config.setCostBenefitConfiguration(ARXCostBenefitConfiguration.create()
                .setAdversaryCost(num(p, "adversary_cost")).setAdversaryGain(num(p, "adversary_gain"))
                .setPublisherLoss(num(p, "publisher_loss")).setPublisherBenefit(num(p, "publisher_benefit")));
            break;
        default:
            throw new IllegalArgumentException("unknown model " + model);
        }
        return config;
    }

    static DataSubset need(DataSubset subset) {
        if (subset == null) throw new IllegalArgumentException("this model needs subset=FILE");
        return subset;
    }

    static Metric<?> metric(String name) {
        switch (name) {
        case "loss": return ARXConfiguration.create().getQualityModel();
        case "aecs": return Metric.createAECSMetric();
        case "entropy": return Metric.createPrecomputedEntropyMetric(0.1d, true);
        case "entropy-nm": return Metric.createPrecomputedEntropyMetric(0.1d, false);
        default: throw new IllegalArgumentException("unknown metric " + name);
        }
    }
}
