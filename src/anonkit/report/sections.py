"""The report's sections, each a function returning its HTML: the verdict, what was done, privacy,
utility and the explored runs. Every value from a summary, audit, config or exploration goes
through :meth:`Page.text <anonkit.report._markup.Page.text>` (hidden values removed, escaped)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from anonkit.io import shown as _shown
from anonkit.report import figures
from anonkit.report._markup import MISSING, Page, esc, facts, mark, note, number, plain, share, table
from anonkit.report.data import class_sizes, column, tally
from anonkit.report.dp import dp_section
from anonkit.report.perturbed import perturbed_section
from anonkit.report.survey import survey_section
from anonkit.report.synthetic import synthetic_section

#: what each summary metric means, for the utility table (metrics not listed are shown by name)
METRICS = {
    "gcp": "generalized certainty penalty over all records (0: as the input, 1: all generalized away)",
    "gcp_released": "the same over the released records only",
    "loss": "ARX's loss (the search metric's value)",
    "modification_rate": "share of released quasi-identifier values that differ from the input",
    "suppression_rate": "share of records suppressed",
    "precision": "precision loss (Sweeney): average generalization level over height",
    "prec_loss": "precision loss as ARX computes it",
    "aecs": "average equivalence class size, normalized by the smallest class size required",
    "avg_class_size": "average class size",
    "min_class_size": "smallest class",
    "dm": "discernibility metric",
    "dm*": "discernibility metric without suppression penalty",
    "entropy": "non-uniform entropy (bits)",
    "entropy_nm": "non-monotonic non-uniform entropy (bits)",
    "height": "sum of generalization levels",
    "whd": "weighted hierarchical distance",
}
#: the summary's risk figures shown when no audit was run
SUMMARY_RISK = {
    "prosecutor_highest": "highest prosecutor risk of a record",
    "prosecutor_average": "average prosecutor risk",
    "records_at_risk": "records whose risk exceeds the threshold",
    "sample_uniqueness": "records unique in their quasi-identifiers",
    "record_linkage": "record linkage success (share of records linked correctly)",
}
#: the summary measures given in percent (record linkage, spec §2.5), shown as shares like the others
PERCENT = {"record_linkage": 100.0}


def _checks(summary: Mapping[str, Any], audit: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """Every model and audit verdict as ``(what, holds)``."""
    out: list[tuple[str, Any]] = [(f"privacy model {v.get('model')}", v.get("holds"))
                                  for v in summary.get("verification") or []]
    if "satisfied" in summary:
        out.append(("the models hold on the release", summary["satisfied"]))
    if "verified" in summary:
        out.append(("independent verification of the release", summary["verified"]))
    if audit:
        out += [(str(v.get("check")), v.get("holds")) for v in audit.get("verdicts") or []]
    return out


def verdict(page: Page, summary: Mapping[str, Any], audit: Mapping[str, Any] | None,
            explore: pd.DataFrame | None) -> str:
    """The box at the top: does every model and every audit verdict hold, and which do not."""
    checks = _checks(summary, audit)
    failing = [what for what, holds in checks if holds is False]
    unknown = [what for what, holds in checks if holds is None]
    items = []
    if not checks and explore is not None:
        state, headline = "open", "An exploration of several runs: choose one in section 4 and audit it."
    elif not checks:
        state, headline = "open", "Nothing was checked: the summary holds no verdict."
    elif failing:
        state = "fail"
        headline = f"Do not publish as is: {len(failing)} of {len(checks)} checks fail."
        items = [f'<li class="fail">{page.text(w)}</li>' for w in failing]
    elif not audit:
        state = "open"
        headline = ("Every privacy model holds and the release was verified, but no audit was run: "
                    "re-identification risk thresholds and attacks are unchecked.")
    else:
        state, headline = "pass", f"Every privacy model and every audit check holds ({len(checks)} checks)."
    items += [f'<li class="unknown">{page.text(w)}: not decided</li>' for w in unknown]
    if explore is not None and len(explore):
        meets = int(explore["meets"].sum()) if "meets" in explore else None
        pareto = int(explore["pareto"].sum()) if "pareto" in explore else None
        items.append(f"<li>Exploration: {len(explore):,} runs, {number(meets)} meet the thresholds, "
                     f"{number(pareto)} on the risk-utility frontier.</li>")
    listed = f"<ul>{''.join(items)}</ul>" if items else ""
    return (f'<section id="verdict" class="verdict verdict-{state}"><h2>Verdict</h2>'
            f'<p class="headline">{esc(headline)}</p>{listed}</section>')


# ---------------------------------------------------------------------- 1. what was done
def done(page: Page, summary: Mapping[str, Any], config_text: str | None, audit: Mapping[str, Any] | None) -> str:
    """Section 1: files and their SHA-256, counts, algorithm, models, versions, time, the config."""
    run = summary.get("run") or {}
    rows = [*_count_rows(summary), *_file_rows(page, summary, run), *_method_rows(page, summary),
            *_run_rows(page, summary, run, audit)]
    body = facts(rows)
    warnings = summary.get("warnings") or []
    if warnings:
        body += "<h3>Warnings</h3><ul>" + "".join(f"<li>{page.text(w)}</li>" for w in warnings) + "</ul>"
    body += "<h3>Config</h3>"
    body += (f'<pre class="config">{page.text(config_text.rstrip())}</pre>' if config_text
             else note("The config was not given."))
    return f'<section id="done"><h2>1. What was done</h2>{body}</section>'


def _count_rows(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The records in, released and suppressed (none when the summary does not count them)."""
    records, released, suppressed = (summary.get(k) for k in ("records", "released", "suppressed"))
    if records is None:
        return []
    share_s = share(suppressed / records) if suppressed is not None and records else MISSING
    if summary.get("not_applicable"):  # a synthetic table: its rows are drawn from a model, none is a record
        rows = (summary.get("notes") or {}).get("synthetic rows")
        return [("records", f"{number(records)} in · {number(rows)} synthetic rows published (no row is a record)")]
    return [("records", f"{number(records)} in · {number(released)} released · "
                        f"{number(suppressed)} suppressed ({share_s})")]


def _file_rows(page: Page, summary: Mapping[str, Any], run: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The input, the config and the outputs, with their SHA-256 where the run recorded them."""
    rows: list[tuple[str, str]] = []
    if "input" in run:
        rows.append(("input", _file(page, run.get("input"), run.get("input_sha256"))))
    if "config" in run:
        rows.append(("config", _file(page, run.get("config"), run.get("config_sha256"))))
    if run.get("outputs"):
        rows.append(("outputs", table(["file", "SHA-256", "rows"], [
            (page.text(_shown(str(o.get("path")))), _sha(o.get("sha256")), number(o.get("rows")))
            for o in run["outputs"]])))
    elif summary.get("output"):
        out = summary["output"]
        shown = ", ".join(_shown(str(o)) for o in out) if isinstance(out, list) else _shown(str(out))
        rows.append(("outputs", page.text(shown)))
    return rows


def _method_rows(page: Page, summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The algorithm, the models, the transformation, the search metric, the score, the classes,
    the seed and the message."""
    rows: list[tuple[str, str]] = []
    if "algorithm" in summary:
        rows.append(("algorithm", page.text(summary["algorithm"]) + (" (a baseline rebuilt from its paper)"
                                                                       if summary.get("reconstructed") else "")))
    if summary.get("models"):
        rows.append(("privacy models", "<br />".join(page.text(m) for m in summary["models"])))
    if summary.get("transformation"):
        rows.append(("transformation", page.text(plain(summary["transformation"]))))
    if isinstance(summary.get("metric"), Mapping):
        rows.append(("search metric", page.text(plain(summary["metric"]))))
    if summary.get("score") is not None:
        rows.append(("score", page.text(plain(summary["score"]))))
    if summary.get("classes") is not None:
        rows.append(("classes", f"{number(summary['classes'])} (smallest: {number(summary.get('min_class_size'))})"))
    for key in ("seed", "message"):
        if summary.get(key) is not None:
            rows.append((key, page.text(plain(summary[key]))))
    return rows


def _run_rows(page: Page, summary: Mapping[str, Any], run: Mapping[str, Any],
              audit: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """When the run started, how long its steps took, the versions, or that provenance is missing."""
    rows: list[tuple[str, str]] = []
    if run.get("started"):
        rows.append(("started (UTC)", page.text(run["started"])))
    times = [f"anonymization {number(summary['seconds'])} s" if summary.get("seconds") is not None else "",
             f"whole run {number(summary['total_seconds'])} s" if summary.get("total_seconds") is not None else "",
             f"audit {number(sum(audit['seconds'].values()))} s" if audit and audit.get("seconds") else ""]
    if any(times):
        rows.append(("time", esc(" · ".join(t for t in times if t))))
    if run.get("versions"):
        rows.append(("versions", page.text(" · ".join(f"{k} {v}" for k, v in run["versions"].items()))))
    if not run:
        rows.append(("provenance", esc("not recorded (a summary without its 'run' section): the files and "
                                       "versions cannot be named")))
    return rows


def _sha(value: object) -> str:
    return f"<code>{esc(value)}</code>" if value else esc("not recorded")


def _file(page: Page, location: object, sha: object) -> str:
    if location is None:
        return esc("none (Python API)")
    return f"{page.text(_shown(str(location)))}<br />SHA-256 {_sha(sha)}"


# ---------------------------------------------------------------------- 2. privacy
def privacy(page: Page, summary: Mapping[str, Any], audit: Mapping[str, Any] | None,
            frames: Mapping[str, pd.DataFrame], qi: list[str]) -> str:
    """Section 2: the models and their verification, class sizes, risk models, attacks."""
    body = "<h3>Privacy models</h3>"
    verification = summary.get("verification") or []
    if verification:
        body += table(["model", "verdict", "achieved"], [
            (page.text(v.get("model")), mark(v.get("holds")),
             MISSING if v.get("achieved") is None else page.text(plain(v.get("achieved"))))  # a check without a figure
            for v in verification])
    else:
        body += note("The summary names no verified model.")
    if "verified" in summary:
        body += facts([("independent verification", mark(summary["verified"]))])
    body += dp_section(page, summary)  # SafePub's guarantee and parameters: a safepub release only
    thresholds = (audit or {}).get("thresholds") or {}
    if not audit:
        body += note("No audit was run: the re-identification risk models and the attack simulations below "
                     "are missing (run anonkit audit). The summary's own risk figures follow.")
        metrics = summary.get("metrics") or {}
        skipped = summary.get("skipped_measures") or {}  # switched off by measures.skip: said, not left out
        rows = [(label, share(metrics[k] / PERCENT.get(k, 1)) if metrics.get(k) is not None
                 else "not computed (measures.skip)")
                for k, label in SUMMARY_RISK.items() if metrics.get(k) is not None or k in skipped]
        if rows:
            body += facts(rows)
        if len(frames) == 1 and qi and "not_applicable" not in summary:  # (a synthetic table has no classes)
            sizes = class_sizes(next(iter(frames.values())), qi)
            body += "<h3>Class sizes</h3>" + page.figure(
                "fig-class-sizes", figures.class_sizes(sizes, threshold=summary.get("risk_threshold")),
                "Classes and records by class size, counted in the release.")
        return f'<section id="privacy"><h2>2. Privacy</h2>{body}</section>'
    verdicts = audit.get("verdicts") or []
    body += "<h3>Audit checks</h3>" + table(["check", "value", "threshold", "verdict"], [
        (page.text(v.get("check")), number(v.get("value")) if v.get("kind") == "model" else share(v.get("value")),
         share(v.get("threshold")), mark(v.get("holds")))
        for v in verdicts])
    risk = audit.get("risk") or {}
    why = summary.get("not_applicable") or risk.get("not_applicable")
    body += (_recordless_privacy(why) if why else _class_risk(page, audit, risk, thresholds))
    body += survey_section(page, audit)  # sdcMicro's measures, when the schema has a weight or household
    outcomes = audit.get("attacks") or []
    body += "<h3>Attacks</h3>" + page.figure(
        "fig-attacks", figures.attacks(outcomes, threshold=thresholds.get("attack_risk")),
        "Attack success on the release with its 95 % interval beside the baseline guesser's and the control "
        "set's; the risk estimate with its interval against the threshold (dashed).") + _attack_table(page, outcomes)
    return f'<section id="privacy"><h2>2. Privacy</h2>{body}</section>'


def _recordless_privacy(why: object) -> str:
    """A release whose rows are no records (a synthetic table): no class sizes, no class risk, and why."""
    return "<h3>Class sizes and risk models</h3>" + note(f"Not shown: {why}.")


def _class_risk(page: Page, audit: Mapping[str, Any], risk: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    """The class sizes, the risk distribution and the prosecutor, journalist and marketer risk models."""
    body = "<h3>Class sizes</h3>" + page.figure(
        "fig-class-sizes", figures.class_sizes(risk.get("class_sizes") or [], threshold=thresholds.get("highest_risk")),
        "Classes and records by class size; red: classes whose re-identification risk (1 / size) exceeds the "
        "highest acceptable risk.")
    body += "<h3>Risk distribution</h3>" + page.figure(
        "fig-risk-distribution",
        figures.risk_distribution(risk.get("distribution") or [], threshold=thresholds.get("highest_risk")),
        "Share of records by their re-identification risk; red: ranges above the highest acceptable risk.")
    body += "<h3>Risk models</h3>" + page.figure(
        "fig-risk-models", figures.risk_models(risk, thresholds),
        "Prosecutor, journalist and marketer risk against the thresholds (dashed).") + _risk_tables(page, audit)
    return body


def _risk_tables(page: Page, audit: Mapping[str, Any]) -> str:
    risk = audit.get("risk") or {}
    rows = []
    for model in ("prosecutor", "journalist", "marketer"):
        r = risk.get(model) or {}
        rows.append((esc(model), *(share(r.get(k)) for k in ("highest", "average", "lowest", "records_at_risk"))))
    out = table(["model", "highest", "average", "lowest", "records at risk"], rows)
    pu = risk.get("population_uniqueness") or {}
    population = audit.get("population") or {}
    chosen = pu.get("model")
    out += facts([
        ("sample uniqueness", share(risk.get("sample_uniqueness"))),
        ("population uniqueness", " · ".join(
            f"{'<b>' if k == chosen else ''}{esc(k)} {share(pu.get(k))}{'</b>' if k == chosen else ''}"
            for k in ("pitman", "zayatz", "snb", "dankar")) + (f" (decision: {esc(chosen)})" if chosen else "")),
        ("population", f"{number(population.get('size'))} (sampling fraction "
                       f"{share(population.get('sampling_fraction'))}, from the "
                       f"{page.text(population.get('source', MISSING))})"),
    ])
    return out


def _attack_table(page: Page, outcomes: Sequence[Mapping[str, Any]]) -> str:
    def with_ci(value: Any, ci: Any) -> str:
        if value is None:
            return MISSING
        return share(value) + (f" [{share(ci[0])}, {share(ci[1])}]" if ci else "")

    rows = [(page.text(a.get("name")), f"{number(a.get('successes'))} / {number(a.get('targets'))}",
             with_ci(a.get("success"), a.get("ci")), with_ci(a.get("baseline"), a.get("baseline_ci")),
             with_ci(a.get("control"), a.get("control_ci")), with_ci(a.get("risk"), a.get("risk_ci")),
             page.text(" ".join(p for p in (a.get("note") or "", _details(a.get("details"))) if p)))
            for a in outcomes]
    if not rows:
        return note("No attack was simulated.")
    return table(["attack", "successes", "success", "baseline", "control", "risk", "what it means"], rows)


def _details(details: Any) -> str:
    if not isinstance(details, Mapping):
        return ""
    scalars = {k: v for k, v in details.items() if isinstance(v, str | int | float | bool) and len(str(v)) < 80}
    return f"({plain(scalars)})" if scalars else ""


# ---------------------------------------------------------------------- 3. utility
def utility(page: Page, summary: Mapping[str, Any], original: pd.DataFrame | None,
            frames: Mapping[str, pd.DataFrame], qi: list[str], others: list[tuple[str, str]]) -> str:
    """Section 3: information loss, generalization per attribute, distributions, suppression."""
    metrics = summary.get("metrics") or {}
    generalization = summary.get("generalization") or {}
    attrs = [(q, "quasi-identifier") for q in qi] + others
    why = summary.get("not_applicable")  # a synthetic table: no class figure, no generalization (and why)
    body = _loss(page, metrics, generalization) if not why else (
        "<h3>Information loss</h3>" + note(f"Not shown: {why}. The marginals' distances follow."))
    body += perturbed_section(page, summary)  # IL1s, eigen, correlations, regressions: a perturbed release only
    body += synthetic_section(page, summary, original, frames, qi, others)  # marginals, TSTR: perturbed/synthetic
    if not why:
        body += _generalization(page, generalization, original, frames, attrs)
    body += _distributions(page, original, frames, attrs)
    records, suppressed = summary.get("records"), summary.get("suppressed")
    body += "<h3>Suppressed records</h3>"
    rate = share(suppressed / records) if suppressed is not None and records else MISSING
    body += facts([("suppressed", f"{number(suppressed)} of {number(records)} records ({rate})"),
                   ("released rows", ", ".join(f"{esc(k)}: {len(f):,}" for k, f in frames.items()) or MISSING)])
    return f'<section id="utility"><h2>3. Utility</h2>{body}</section>'


def _loss(page: Page, metrics: Mapping[str, Any], generalization: Mapping[str, Any]) -> str:
    """The summary's information-loss measures with their meaning, and the per-attribute figure."""
    body = "<h3>Information loss</h3>"
    rows = [(page.text(k), number(v), esc(METRICS.get(k, ""))) for k, v in metrics.items()
            if isinstance(v, int | float) and not isinstance(v, bool)]
    body += table(["measure", "value", "meaning"], rows) if rows else note("The summary holds no utility measure.")
    if generalization:
        body += page.figure("fig-information-loss", figures.information_loss(generalization, metrics),
                            "Per quasi-identifier: the share of released values that differ from the input, "
                            "and the generalization level over the hierarchy's height.")
    return body


def _generalization(page: Page, generalization: Mapping[str, Any], original: pd.DataFrame | None,
                    frames: Mapping[str, pd.DataFrame], attrs: list[tuple[str, str]]) -> str:
    """One row per attribute: its level, distinct values before, labels after, the most frequent
    released labels and the share of values changed."""
    grows = []
    for name, role in attrs:
        g = generalization.get(name) or {}
        before = tally(original[name]) if original is not None and name in original.columns else None
        after = column(frames, name)
        after_t = tally(after) if after is not None else None
        level = f"{number(g.get('level'))} / {number(g.get('height'))}" if g else MISSING
        grows.append((page.text(name), esc(role), level,
                      number(before.distinct) if before else MISSING,
                      number(after_t.distinct if after_t else g.get("labels")),
                      page.text(", ".join(g.get("examples") or (after_t.labels[:3] if after_t else ()))),
                      share(g.get("changed")) if g else MISSING))
    return "<h3>Generalization per attribute</h3>" + (
        table(["attribute", "role", "level / height", "distinct in input", "released labels",
               "most frequent released", "values changed"], grows) if grows else note("No attribute is known."))


def _distributions(page: Page, original: pd.DataFrame | None, frames: Mapping[str, pd.DataFrame],
                   attrs: list[tuple[str, str]]) -> str:
    """Every attribute's distribution in the input (values hidden unless ``show_values``) and in
    the release."""
    body = "<h3>Distributions before and after</h3>"
    body += note("Each attribute in the input (left) and in the release (right). The release's labels are "
                 "published and shown; the input's values are "
                 + ("shown, as asked (show_values)." if page.show_values else
                    "hidden: only the shape of their distribution is drawn (frequencies ranked, or a histogram "
                    "over the range without its values)."))
    for i, (name, role) in enumerate(attrs):
        before = original[name] if original is not None and name in original.columns else None
        after = column(frames, name)
        if before is None and after is None:
            continue
        body += page.figure(f"fig-dist-{i}", figures.distribution(before, after, show_values=page.show_values,
                                                                  name=name),
                            f"{name} ({role}): distribution in the input and in the release.")
    return body


# ---------------------------------------------------------------------- 4. explored runs
def explored(page: Page, explore: pd.DataFrame | None) -> str:
    """Section 4: the risk-utility map of an exploration and the table of its runs."""
    if explore is None:
        body = note("No exploration was given (anonkit explore compares runs on a risk-utility map).")
        return f'<section id="explore"><h2>4. Explored runs</h2>{body}</section>'
    risk, loss = explore.attrs.get("risk") or "risk", explore.attrs.get("loss") or "loss"
    thresholds = explore.attrs.get("thresholds") or None
    rows = [("runs", number(len(explore))), ("risk measure", page.text(risk or MISSING)),
            ("loss measure", page.text(loss or MISSING))]
    if thresholds:
        rows.append(("thresholds", page.text(plain(thresholds))))
    body = facts(rows)
    body += page.figure("fig-ru-map", figures.ru_map(explore, risk=risk, loss=loss, thresholds=thresholds),
                        "Risk against loss for every run; the frontier joins the runs no other run beats on both.")
    cells = [[page.text(_cell(v)) for v in row] for row in explore.itertuples(index=False)]
    body += table([str(c) for c in explore.columns], cells, cls="runs")
    return f'<section id="explore"><h2>4. Explored runs</h2>{body}</section>'


def _cell(value: Any) -> str:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4g}"
    return plain(value)
