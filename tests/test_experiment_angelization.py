"""Paper D's comparison (``anonkit experiment angelization``) end to end on a small 1:M table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from tests.support import run_cli as run

from anonkit.experiments import angelization as experiment


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, pd.DataFrame], Path, list]:
    out = tmp_path_factory.mktemp("angel")
    steps: list = []
    tables = experiment.run(out, persons=800, repeats=1, progress=lambda i, n, what: steps.append((i, n, what)))
    return tables, out, steps


def test_every_setting_runs_verified_and_is_written(small: tuple) -> None:
    tables, out, steps = small
    res = tables["results"]
    settings = len(experiment.KS) * 3 + (len(experiment.LAMBDAS) - 1) * 2
    assert len(res) == settings and set(res["algorithm"]) == set(experiment.ALGORITHMS)
    assert (res["status"] == "verified").all(), res[res["status"] != "verified"]
    for name in ("angelization_results.csv", "angelization_claims.csv", "angelization_k.png",
                 "angelization_lambda.png"):
        assert (out / name).stat().st_size > 0, name
    assert steps[-1][0] == steps[-1][1] == settings
    assert pd.read_csv(out / "angelization_results.csv").shape == res.shape


def test_the_measures_separate_the_algorithms_as_the_models_say(small: tuple) -> None:
    res = small[0]["results"]
    one_bucket = res[res["algorithm"] != "theta-sensitive"]
    assert (one_bucket["intersection_rate"] == 0).all() and (one_bucket["spread"] == 0).all()
    record_level = res[res["algorithm"] == "theta-sensitive"]
    assert (record_level["spread"] > 0).all() and record_level["breached"].sum() > 0
    assert (one_bucket["min_persons"] >= one_bucket["k"]).all()  # k counted on persons
    assert (record_level["min_persons"] < record_level["k"]).any()  # classes of k records, fewer persons
    assert res["ncp"].between(0, 1).all() and res["linkability_max"].between(0, 1).all()
    angel = res[(res["algorithm"] == "angelization") & (res["k"] == experiment.LAMBDA_K)].sort_values("lambda")
    assert angel["ncp"].is_monotonic_increasing  # a larger λ asks for more spread, larger buckets


def test_claims_are_judged_from_the_figures(small: tuple) -> None:
    claims = small[0]["claims"]
    assert len(claims) == 2 * 6 and set(claims["paper"]) == {"better"}
    intersection = claims[claims["claim"].str.contains("theta-sensitive: privacy: fewer persons breached")]
    assert intersection["verdict"].tolist() == ["reproduced"]
    persons = claims[claims["claim"].str.contains("kl-diversity: privacy: larger classes")]
    assert persons["verdict"].tolist() == ["tied (not better)"]  # both give every class k persons
    table = pd.DataFrame({"algorithm": ["angelization", "theta-sensitive", "kl-diversity"] * 2,
                          "k": [2, 2, 2, 4, 4, 4], "lambda": [0.5, 0.5, float("nan")] * 2,
                          "status": ["verified"] * 6, "min_persons": [2, 1, 2, 4, 1, 4],
                          "ncp": [0.1, 0.2, 0.05, 0.3, 0.2, 0.4], "query_error": [1.0] * 6,
                          "intersection_rate": [0.0, 0.3, 0.0] * 2, "linkability_mean": [0.1] * 6,
                          "linkability_max": [0.5] * 6})
    verdicts = dict(zip(experiment._claims(table)["claim"], experiment._claims(table)["verdict"], strict=True))
    assert verdicts["(θ*,k)-utility vs theta-sensitive: utility: lower NCP"] == "partly (k = 2)"
    assert verdicts["(θ*,k)-utility vs kl-diversity: utility: lower NCP"] == "partly (k = 4)"
    assert verdicts["(θ*,k)-utility vs kl-diversity: utility: higher query accuracy (lower mean relative error)"] \
        == "tied (not better)"


def test_the_command_line_prints_the_claims(tmp_path: Path) -> None:
    code, out, err = run("experiment", "angelization", "--quick", "--persons", "400", "--out", str(tmp_path))
    assert code == 0, err
    assert "The paper's claims" in out and "REPRODUCED" in out and (tmp_path / "angelization_k.png").exists()
    code, _, err = run("experiment", "angelization", "--persons", "0", "--out", str(tmp_path))
    assert code == 2 and "--persons" in err
