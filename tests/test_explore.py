"""``anonkit.explore``: the grid, its checks before any run, the verdicts (thresholds, Pareto front),
the files and the R-U map, and a real grid on a 2,000-record Adult sample with Flash and Mondrian."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import interrupt
from anonkit.config import load_config
from anonkit.errors import InputError
from anonkit.explore import (
    FILES,
    LOSSES,
    RISKS,
    explore,
    explore_outputs,
    meets,
    pareto_front,
    parse_algorithms,
    parse_vary,
    resolve_thresholds,
    risk_limit,
    write_explore,
)
from anonkit.explore import run as explore_run
from anonkit.explore.grid import plan
from anonkit.metrics import METRICS
from anonkit.pipeline import anonymize, config_schema, load_input
from anonkit.report.ru_map import ru_map

ADULT = Path(__file__).resolve().parents[1] / "src" / "anonkit" / "datasets" / "data"
QIS = ("sex", "age", "race", "marital-status", "education")

CONFIG = """\
input: {{path: adult2k.csv, separator: ";"}}
attributes:
{attributes}
  occupation: {{role: sensitive}}
  native-country: {{role: identifier}}
  workclass: {{role: identifier}}
  salary-class: {{role: identifier}}
privacy:
  - {{model: k-anonymity, k: 5}}
  - {{model: l-diversity, attribute: occupation, l: 2}}
algorithm: {{name: flash, max_suppression: 0.05}}
seed: 3
{extra}"""


def _write_config(folder: Path, extra: str = "", name: str = "explore.yaml") -> Path:
    attributes = "\n".join(f"  {q}: {{role: quasi, hierarchy: {ADULT / f'adult_hierarchy_{q}.csv'}}}" for q in QIS)
    path = folder / name
    path.write_text(CONFIG.format(attributes=attributes, extra=extra), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a 2,000-record seeded sample of Adult and a config over it."""
    folder = tmp_path_factory.mktemp("explore")
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.sample(n=2000, random_state=7).to_csv(folder / "adult2k.csv", sep=";", index=False)
    _write_config(folder)
    return folder


@pytest.fixture(scope="module")
def config_path(sample: Path) -> Path:
    return sample / "explore.yaml"


@pytest.fixture(scope="module")
def grid(config_path: Path):  # type: ignore[no-untyped-def]
    """k = 2, 5, 10 × flash, mondrian on the sample."""
    return explore(config_path, vary=parse_vary(["k=2,5,10"]), algorithms=["flash", "mondrian"])


# ---------------------------------------------------------------------- --vary and the grid
def test_parse_vary_reads_numbers() -> None:
    out = parse_vary(["k=2, 5,10", "t=0.1,0.25", "max_suppression=0,1e-2"])
    assert out == {"k": [2, 5, 10], "t": [0.1, 0.25], "max_suppression": [0, 0.01]}
    assert [type(v) for v in out["k"]] == [int, int, int]
    assert parse_vary([]) == {}


@pytest.mark.parametrize(("items", "words"), [
    (["x=1"], "unknown --vary key 'x'"),
    (["k"], "KEY=V1,V2"),
    (["=1"], "KEY=V1,V2"),
    (["k="], "no values"),
    (["k=2,,5"], "empty value"),
    (["k=two"], "'two' is not a number"),
    (["k=inf"], "not a finite number"),
    (["k=2", "k=5"], "given twice"),
    (["k=2,2"], "the value 2 is given twice"),
])
def test_parse_vary_refuses(items: list[str], words: str) -> None:
    with pytest.raises(InputError, match=words) as exc:
        parse_vary(items)
    assert "\n" not in str(exc.value)


def test_parse_algorithms() -> None:
    assert parse_algorithms("flash, mondrian") == ["flash", "mondrian"]
    assert parse_algorithms(["flash", "mondrian,uhra"]) == ["flash", "mondrian", "uhra"]
    assert parse_algorithms(None) is None
    for bad, words in (("flash,,mondrian", "separated by commas"), ("flash,nope", "unknown algorithm 'nope'"),
                       ("flash,flash", "names flash twice")):
        with pytest.raises(InputError, match=words):
            parse_algorithms(bad)


def test_grid_is_the_product_of_values_and_algorithms(config_path: Path) -> None:
    config = load_config(config_path)
    runs, notes = plan(config, {"k": [2, 5, 10], "l": [2, 3]}, ["flash", "mondrian"])
    assert len(runs) == 3 * 2 * 2
    assert [(r.algorithm.name, r.params["k"], r.params["l"]) for r in runs] == [
        (a, k, lv) for a in ("flash", "mondrian") for k in (2, 5, 10) for lv in (2, 3)
    ]
    for r in runs:
        k_model, l_model = r.models
        assert (k_model.k, l_model.l) == (r.params["k"], r.params["l"])
        assert r.options["max_suppression"] == 0.05  # the config's option, carried to mondrian
        assert r.label == f"k={r.params['k']} l={r.params['l']}"
    assert notes == []
    # the default grid is the config's algorithm; an option is varied on every algorithm
    runs, _ = plan(config, {"max_suppression": [0.0, 0.1]})
    assert [(r.algorithm.name, r.options["max_suppression"]) for r in runs] == [("flash", 0.0), ("flash", 0.1)]
    assert all(r.models[0].k == 5 for r in runs)


def test_option_of_another_algorithm_is_left_out_and_noted(sample: Path) -> None:
    path = _write_config(sample, name="heuristic.yaml")
    text = path.read_text().replace("max_suppression: 0.05}", "max_suppression: 0.05, heuristic_threshold: 500}")
    path.write_text(text)
    runs, notes = plan(load_config(path), {"k": [5]}, ["flash", "mondrian"])
    assert runs[0].options["heuristic_threshold"] == 500
    assert "heuristic_threshold" not in runs[1].options
    assert notes == ["mondrian does not take the config's option(s) heuristic_threshold: left out"]


@pytest.mark.parametrize(("vary", "algorithms", "words"), [
    ({"x": [1]}, None, "unknown --vary key 'x'"),
    ({"t": [0.1]}, None, "no privacy model of the config has 't'"),
    ({"time_limit": [5]}, ["flash", "mondrian"], "'time_limit' is not an option of mondrian"),
    ({"k": [2]}, ["flash", "nope"], "unknown algorithm 'nope'"),
    ({"k": [2, 0]}, None, "k=0"),
    ({"k": [5, 2.5]}, None, "k=2.5"),
    ({"max_suppression": [0.1, 2]}, ["mondrian"], "max_suppression"),
    ({"k": [2]}, ["flash", "angelization"], "angelization .*needs a person column"),
    ({"k": [5, 5000]}, ["mondrian"], "needs classes of 5000 records but the table has only 2000"),
])
def test_bad_grid_is_refused_before_any_run(config_path: Path, monkeypatch: pytest.MonkeyPatch, vary: dict,
                                            algorithms: list[str] | None, words: str) -> None:
    calls = []
    monkeypatch.setattr(explore_run, "anonymize", lambda *a, **k: calls.append(1))
    with pytest.raises(InputError, match=words) as exc:
        explore(config_path, vary=vary, algorithms=algorithms)
    assert calls == []
    assert "\n" not in str(exc.value)


def test_unknown_measures_and_thresholds_are_refused(config_path: Path) -> None:
    with pytest.raises(InputError, match="unknown risk 'risk'; choose one of prosecutor_highest"):
        explore(config_path, vary={"k": [2]}, risk="risk")
    with pytest.raises(InputError, match="unknown loss 'utility'"):
        explore(config_path, vary={"k": [2]}, loss="utility")
    with pytest.raises(InputError, match=r"thresholds\.highest"):
        explore(config_path, vary={"k": [2]}, thresholds={"highest": 0.1})


def test_the_choice_lists() -> None:
    assert set(RISKS) == {"prosecutor_highest", "prosecutor_average", "records_at_risk", "sample_uniqueness",
                          "record_linkage", "journalist_highest", "journalist_average", "marketer_average",
                          "population_uniqueness"}
    assert set(LOSSES) <= set(METRICS) and {"loss", "gcp", "dm", "entropy", "precision"} <= set(LOSSES)
    assert not set(LOSSES) & set(RISKS)
    assert "min_class_size" not in LOSSES  # larger is better: not a loss


# ---------------------------------------------------------------------- the verdicts
def _dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[0] and a[1] <= b[1] and a != b


def test_pareto_front_of_a_hand_made_frame() -> None:
    loss = [0.1, 0.2, 0.2, 0.3, 0.1, 0.5, 0.4, 0.05, 0.2, np.nan]
    risk = [0.5, 0.2, 0.3, 0.2, 0.5, 0.1, 0.1, 0.9, 0.2, 0.01]
    ok = [True, True, True, True, True, True, True, False, True, True]
    front = pareto_front(loss, risk, ok)
    # (0.1, 0.5) twice: equal points are both on it; (0.2, 0.2) twice likewise; (0.2, 0.3) is dominated by
    # (0.2, 0.2), (0.3, 0.2) by (0.2, 0.2), (0.5, 0.1) by (0.4, 0.1); (0.05, 0.9) is not satisfied, the
    # run without a loss is never on it
    assert front.tolist() == [True, True, False, False, True, False, True, False, True, False]
    assert not pareto_front([], []).any()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.booleans()), min_size=1, max_size=40))
def test_pareto_front_property(points: list[tuple[int, int, bool]]) -> None:
    loss = np.array([p[0] / 6 for p in points])
    risk = np.array([p[1] / 6 for p in points])
    ok = np.array([p[2] for p in points])
    front = pareto_front(loss, risk, ok)
    pts = list(zip(loss.tolist(), risk.tolist(), strict=True))
    assert not (front & ~ok).any()
    for i in np.flatnonzero(front):  # no front point is dominated by a satisfied point
        assert not any(_dominates(pts[j], pts[i]) for j in np.flatnonzero(ok))
    for i in np.flatnonzero(ok & ~front):  # every other satisfied point is dominated by a front point
        assert any(_dominates(pts[j], pts[i]) for j in np.flatnonzero(front))


def test_meets_holds_satisfied_runs_to_the_limit() -> None:
    sat = [True, True, True, False, True]
    risk = [0.2, 0.2000001, 0.05, 0.01, np.nan]
    assert meets(sat, risk, 0.2).tolist() == [True, False, True, False, False]
    assert meets(sat, [1 / 5] * 5, 0.2).tolist() == sat  # 1/5 in floating point meets 0.2
    assert not meets(sat, risk, None).any()


def test_each_risk_is_held_to_its_threshold() -> None:
    th = {"highest_risk": 0.2, "average_risk": 0.05, "population_uniqueness": 0.01, "attack_risk": 0.1}
    assert risk_limit("prosecutor_highest", th) == 0.2
    assert risk_limit("prosecutor_average", th) == 0.05
    assert risk_limit("record_linkage", th) == 0.05
    assert risk_limit("sample_uniqueness", th) == 0.01
    assert risk_limit("records_at_risk", th) == 0.0  # highest_risk bounds every record: none may be at risk
    assert risk_limit("unknown", th) is None


def test_thresholds_come_from_the_config_then_the_call(sample: Path) -> None:
    path = _write_config(sample, "audit: {thresholds: {highest_risk: 0.1}}\n", name="audited.yaml")
    config = load_config(path)
    assert resolve_thresholds(config)["highest_risk"] == 0.1
    assert resolve_thresholds(config, {"average_risk": 0.02}) == {
        "highest_risk": 0.1, "average_risk": 0.02, "population_uniqueness": 0.01, "attack_risk": 0.1,
        "individual_risk": 0.15}
    with pytest.raises(InputError, match=r"thresholds\.average_risk"):
        resolve_thresholds(config, {"average_risk": 1.5})


# ---------------------------------------------------------------------- a real grid
def test_real_grid_on_adult_sample(grid, config_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = grid.frame
    assert list(f.columns) == ["series", "algorithm", "k", "label", "satisfied", "verified", "meets", "pareto",
                               "loss", "risk", "suppressed", "classes", "seconds", "message"]
    assert [(a, k) for a, k in zip(f["algorithm"], f["k"], strict=True)] == list(
        itertools.product(["flash", "mondrian"], [2, 5, 10]))
    assert f["satisfied"].all() and f["verified"].all()
    # the highest prosecutor risk is 1 / smallest class: at most 1/k (l-diversity may make classes larger)
    assert (f["risk"] <= 1 / f["k"] + 1e-12).all()
    assert f["meets"].tolist() == (f["risk"] <= 0.2 + 1e-12).tolist()
    assert f["pareto"].tolist() == pareto_front(f["loss"], f["risk"], f["satisfied"]).tolist()
    assert f["pareto"].any()
    # a run is exactly anonymize() on the input: the same loss and suppression
    config = load_config(config_path)
    frame, defaults = load_input(config, config_path.parent)
    schema = config_schema(config, config_path.parent, defaults, frame)
    models = [m.build() for m in config.privacy]
    models[0] = type(models[0])(10)
    direct = anonymize(frame, schema, models, algorithm="mondrian", seed=3, max_suppression=0.05)
    row = f[(f["algorithm"] == "mondrian") & (f["k"] == 10)].iloc[0]
    assert row["loss"] == direct.summary["metrics"]["loss"]
    assert row["suppressed"] == direct.summary["suppressed"] and row["classes"] == direct.summary["classes"]
    assert row["risk"] == direct.summary["metrics"]["prosecutor_highest"]
    assert grid.timings["reuse"] is True and grid.timings["encode"] > 0


def test_reusing_the_encoding_changes_nothing(grid, config_path: Path) -> None:  # type: ignore[no-untyped-def]
    again = explore(config_path, vary={"k": [2, 5, 10]}, algorithms=["flash", "mondrian"], reuse=False)
    pd.testing.assert_frame_equal(grid.frame.drop(columns="seconds"), again.frame.drop(columns="seconds"))


def test_reused_table_is_handed_to_every_run(config_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anonkit import table as table_module

    made = []
    original = table_module.Table.__init__

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(table_module.Table, "__init__", counting)
    explore(config_path, vary={"k": [2, 5, 10]})
    assert len(made) == 1
    made.clear()
    explore(config_path, vary={"k": [2, 5, 10]}, reuse=False)
    assert len(made) == 1 + 3


def test_unsatisfiable_run_is_a_row(config_path: Path) -> None:
    # occupation has 14 values in the sample: 15-diversity is proven impossible, 2-diversity holds
    res = explore(config_path, vary={"l": [2, 15]}, algorithms=["mondrian"], risk="records_at_risk", loss="gcp")
    f = res.frame
    assert f["satisfied"].tolist() == [True, False]
    bad = f.iloc[1]
    assert not bad["verified"] and not bad["meets"] and not bad["pareto"]
    assert np.isnan(bad["loss"]) and np.isnan(bad["risk"]) and "cannot be met" in bad["message"]
    good = f.iloc[0]
    assert good["meets"] == (good["risk"] == 0.0)  # no record above highest_risk
    assert good["pareto"]


def test_an_error_inside_a_run_is_a_row(config_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = explore_run.anonymize

    def failing(frame, schema, models, **kwargs):  # type: ignore[no-untyped-def]
        if models[0].k == 5:
            raise InputError("the explanation failed", key="model")
        return real(frame, schema, models, **kwargs)

    monkeypatch.setattr(explore_run, "anonymize", failing)
    res = explore(config_path, vary={"k": [2, 5, 10]}, algorithms=["mondrian"])
    assert res.frame["satisfied"].tolist() == [True, False, True]
    assert res.frame["message"][1] == "error: the explanation failed (key 'model')"
    assert res.notes == ["1 run stopped with an error (see its message)"]


def test_population_risks(sample: Path, config_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(explore_run, "anonymize", lambda *a, **k: calls.append(1))
    with pytest.raises(InputError, match=r"needs the population .*audit\.population"):
        explore(config_path, vary={"k": [1, 2]}, risk="population_uniqueness")
    assert calls == []
    monkeypatch.undo()
    path = _write_config(sample, "audit: {population: 30000}\n", name="population.yaml")
    vary = {"k": [1, 2], "l": [1]}  # 1-anonymity leaves sample uniques; 2-anonymity none
    pop = explore(path, vary=vary, algorithms=["mondrian"], risk="population_uniqueness").frame
    uniq = explore(path, vary=vary, algorithms=["mondrian"], risk="sample_uniqueness").frame
    assert 0 < pop["risk"][0] < uniq["risk"][0] and pop["risk"][1] == uniq["risk"][1] == 0
    assert pop["meets"].tolist() == [False, True]  # held to population_uniqueness 0.01
    # without a population table the release is its own population (ARX): journalist = prosecutor
    journalist = explore(path, vary=vary, algorithms=["mondrian"], risk="journalist_highest").frame
    prosecutor = explore(path, vary=vary, algorithms=["mondrian"], risk="prosecutor_highest").frame
    assert journalist["risk"].tolist() == prosecutor["risk"].tolist() == [1.0, 0.5]


def test_progress_and_interrupt(config_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    explore(config_path, vary={"k": [2, 5]}, algorithms=["mondrian"], progress=lambda d, t, w: seen.append((d, t, w)))
    assert [s[:2] for s in seen] == [(0, 2), (0, 2), (1, 2), (2, 2)]
    assert seen[2][2] == "mondrian k=5"

    from rich.progress import Progress

    with Progress(disable=True) as bar:
        explore(config_path, vary={"k": [2, 5]}, algorithms=["mondrian"], progress=bar)
        (task,) = bar.tasks
        assert (task.completed, task.total) == (2, 2)

    def stop(done: int, total: int, what: str) -> None:
        if done == 1:
            interrupt.request()

    try:
        with pytest.raises(KeyboardInterrupt):
            explore(config_path, vary={"k": [2, 5, 10]}, algorithms=["mondrian"], progress=stop)
    finally:
        interrupt.reset()


# ---------------------------------------------------------------------- files and the map
def test_files_are_written_and_reproducible(grid, config_path: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    first = write_explore(grid, tmp_path / "a")
    assert [Path(p).name for p in first] == list(FILES.values())
    again = explore(config_path, vary={"k": [2, 5, 10]}, algorithms=["flash", "mondrian"])
    second = write_explore(again, tmp_path / "b")
    for a, b in zip(first, second, strict=True):
        assert Path(a).read_bytes() == Path(b).read_bytes(), a
        assert Path(a).stat().st_size > 0
    assert not list((tmp_path / "a").glob(".*"))  # no temporary file left behind
    doc = json.loads((tmp_path / "a" / "explore.json").read_text())
    assert doc["kind"] == "explore" and doc["config"] == str(config_path)
    assert (doc["risk"], doc["loss"]) == ("prosecutor_highest", "loss")
    assert doc["thresholds"]["highest_risk"] == 0.2 and len(doc["runs"]) == 6
    assert doc["runs"][0]["algorithm"] == "flash" and "seconds" not in doc["runs"][0]
    csv = pd.read_csv(tmp_path / "a" / "explore.csv")
    assert len(csv) == 6 and csv["loss"].tolist() == pytest.approx(grid.frame["loss"].tolist())
    svg = (tmp_path / "a" / "ru-map.svg").read_text()
    assert "<dc:date>" not in svg
    assert (tmp_path / "a" / "ru-map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    timed = write_explore(grid, tmp_path / "c", timings=True)
    assert "seconds" in pd.read_csv(timed[0]).columns
    assert "timings" in json.loads(Path(timed[3]).read_text())


def test_never_writes_over_what_it_reads(sample: Path, tmp_path: Path) -> None:
    folder = tmp_path / "reads"
    folder.mkdir()
    (folder / "explore.csv").write_bytes((sample / "adult2k.csv").read_bytes())
    path = _write_config(folder)
    path.write_text(path.read_text().replace("path: adult2k.csv", "path: explore.csv"))
    config = load_config(path)
    with pytest.raises(InputError, match="write over a file it reads"):
        explore_outputs(folder, config, config_dir=folder, config_file=path)
    result = explore(path, vary={"k": [5]}, algorithms=["mondrian"])
    before = (folder / "explore.csv").read_bytes()
    with pytest.raises(InputError, match="write over a file it reads"):
        write_explore(result, folder)
    assert (folder / "explore.csv").read_bytes() == before
    assert not (folder / "ru-map.png").exists()
    # the config itself, named like an output
    json_config = _write_config(tmp_path, name="explore.json")
    with pytest.raises(InputError, match="write over a file it reads"):
        explore_outputs(tmp_path, load_config(json_config), config_dir=sample, config_file=json_config)
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="is a file"):
        write_explore(result, tmp_path / "file")


def _points(fig) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(points drawn, points drawn filled) of the map's scatter collections."""
    ax = fig.axes[0]
    total = filled = 0
    for c in ax.collections:
        n = len(c.get_offsets())
        total += n
        if len(c.get_facecolors()) and c.get_facecolors()[0][3] > 0:
            filled += n
    return total, filled


def test_ru_map_draws_every_satisfied_run(config_path: Path) -> None:
    res = explore(config_path, vary={"k": [2, 5, 10], "l": [2, 15]}, algorithms=["flash", "mondrian"])
    f = res.frame
    assert f["satisfied"].sum() == 6 and len(f) == 12
    fig = res.figure()
    assert _points(fig) == (6, int(f["meets"].sum()))
    ax = fig.axes[0]
    (step,) = [ln for ln in ax.get_lines() if ln.get_drawstyle() == "steps-post"]
    assert len(step.get_xdata()) == int(f["pareto"].sum())
    (limit,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert limit.get_xdata()[0] == 0.2
    labels = {t.get_text() for t in ax.texts}
    assert labels <= set(f["label"]) and labels
    assert "6 runs not satisfied" in " ".join(t.get_text() for t in fig.texts)
    renderer = fig.canvas.get_renderer()
    assert all(fig.bbox.contains(*t.get_window_extent(renderer).p1) for t in fig.texts)  # inside the figure
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["flash", "mondrian"]


def test_ru_map_with_fifty_points_keeps_labels_apart() -> None:
    rng = np.random.default_rng(0)
    n = 50
    frame = pd.DataFrame({
        "algorithm": np.repeat(["a", "b", "c", "d", "e"], 10),
        "label": [f"k={k} t={t}" for k, t in itertools.product([2, 5, 10, 20, 50], [0.1, 0.2])] * 5,
        "risk": rng.uniform(0, 0.5, n),
        "loss": rng.uniform(0, 1, n),
        "satisfied": True,
    })
    frame.loc[40:, ["risk", "loss"]] = np.column_stack([0.3 + np.arange(10) * 1e-3, 0.5 + np.arange(10) * 1e-3])
    fig = ru_map(frame, risk="prosecutor_highest", loss="loss", thresholds={"highest_risk": 0.2})
    assert _points(fig)[0] == n
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) >= n // 2  # most points keep their label
    assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    area = ax.get_window_extent(renderer)
    assert all(area.x0 <= b.x0 and b.x1 <= area.x1 and area.y0 <= b.y0 and b.y1 <= area.y1 for b in boxes)
    assert len(boxes) < n and "left out" in fig.texts[-1].get_text()  # the crowded ten cannot all keep theirs
    for t in fig.texts:  # the corner notes stay inside the figure
        box = t.get_window_extent(renderer)
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1), t.get_text()
    # without the verdict columns they are computed: meets from the thresholds, the front from the points
    filled = _points(fig)[1]
    assert filled == int((frame["risk"] <= 0.2).sum())


def test_ru_map_reads_measure_named_columns() -> None:
    frame = pd.DataFrame({"algorithm": ["a", "a", "b"], "gcp": [0.3, 0.2, 0.1], "sample_uniqueness": [0.0, 0.02, 0.5]})
    fig = ru_map(frame, risk="sample_uniqueness", loss="gcp", thresholds={"population_uniqueness": 0.01})
    assert _points(fig) == (3, 1)
    assert fig.axes[0].get_xlabel().startswith("sample_uniqueness")
    with pytest.raises(InputError, match="no column"):
        ru_map(frame, risk="record_linkage", loss="gcp")
