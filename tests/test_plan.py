"""The plan layer (issue 24): a config is validated once into an immutable plan; the plan writes back
to YAML as the config that gives the same plan (and the same release); one run validates the
algorithm's options once, builds the models once and parses the input once."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
import yaml

import anonkit.plan.load
from anonkit.algorithms.spec import Algorithm
from anonkit.config import Config, load_config, parse_config
from anonkit.errors import InputError
from anonkit.plan import Plan, plan_from_config, plan_from_yaml
from anonkit.runner import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LOCAL_EXAMPLES = sorted(p.stem for p in EXAMPLES.glob("*.yaml") if "spark" not in p.stem)


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    return tmp_path / "examples"


@pytest.mark.parametrize("name", LOCAL_EXAMPLES)
def test_every_example_plan_round_trips_through_yaml(examples: Path, name: str) -> None:
    path = examples / f"{name}.yaml"
    plan = plan_from_config(load_config(path), config_dir=examples, config_file=path)
    again = plan_from_yaml(plan.to_yaml(), config_dir=examples)
    assert again == plan and again.declaration() == plan.declaration()
    assert again.options == plan.options and again.seed == plan.seed and again.outputs == plan.outputs
    assert [m.describe() for m in again.models] == [m.describe() for m in plan.models]


def test_the_command_line_overrides_are_folded_into_the_yaml(examples: Path, tmp_path: Path) -> None:
    """``--input``, ``--output`` and ``--seed`` become the config's keys: the written plan reruns to
    the same bytes."""
    files = examples / "files"
    config = parse_config({
        "input": {"path": "files/test2.csv", "separator": ";"},
        "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "files/test2_hierarchy_ZIPCode.csv"},
                       "Age": {"role": "quasi", "hierarchy": "files/test2_hierarchy_Age.csv"},
                       "Salary": {"role": "insensitive"}, "Disease": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "output": {"path": "never.csv"},
    })
    data = tmp_path / "other.csv"
    shutil.copy(files / "test2.csv", data)
    plan = plan_from_config(config, config_dir=examples, input_path=str(data), output_path=str(tmp_path / "a.csv"),
                            seed=11)
    text = plan.to_yaml()
    declared = yaml.safe_load(text)
    assert declared["seed"] == 11 and declared["output"] == {"path": str(tmp_path / "a.csv")}
    assert declared["input"] == {"path": str(data), "separator": ";"}
    again = plan_from_yaml(text, config_dir=examples)
    assert again == plan and again.input_path is None and again.output_path is None
    run(plan)
    first = (tmp_path / "a.csv").read_bytes()
    (tmp_path / "a.csv").unlink()
    run(again)
    assert (tmp_path / "a.csv").read_bytes() == first
    assert not (examples / "never.csv").exists()


def test_a_plan_is_immutable_and_its_options_read_only(examples: Path) -> None:
    plan = plan_from_config(load_config(examples / "adult.yaml"), config_dir=examples)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.seed = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.options["max_suppression"] = 0.5  # type: ignore[index]
    assert isinstance(plan.models, tuple)


def test_a_bad_setting_is_refused_when_the_plan_is_made(examples: Path) -> None:
    """The plan is the boundary: the seed, the options and every output are checked there."""
    config = load_config(examples / "adult.yaml")
    with pytest.raises(InputError, match="seed"):
        plan_from_config(config, config_dir=examples, seed=-1)
    bad = parse_config({**yaml.safe_load((examples / "adult.yaml").read_text()),
                        "output": {"path": str(examples / "adult.yaml")}})
    with pytest.raises(InputError, match="config"):
        plan_from_config(bad, config_dir=examples, config_file=examples / "adult.yaml")


def test_one_run_validates_once_builds_once_and_parses_the_input_once(examples: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted with wrappers on the declaration's validation, the config's model building and the
    input's reading: each happens once in a run (a run whose verdict holds, so no advice reruns)."""
    counts = {"validate": 0, "models": 0, "read": 0}
    validate, models, read = Algorithm.validate, Config.models, anonkit.plan.load.read_table

    def counting(name: str, fn):  # type: ignore[no-untyped-def]
        def wrapper(*a, **k):  # type: ignore[no-untyped-def]
            counts[name] += 1
            return fn(*a, **k)
        return wrapper

    monkeypatch.setattr(Algorithm, "validate", counting("validate", validate))
    monkeypatch.setattr(Config, "models", counting("models", models))
    monkeypatch.setattr(anonkit.plan.load, "read_table", counting("read", read))
    text = (EXAMPLES / "adult-fixed.yaml").read_text()
    config = parse_config({**yaml.safe_load(text), "audit": {"attacks": ["homogeneity"]}})
    counts.update(validate=0, models=0, read=0)  # what parsing the config did is the boundary too
    result = run(plan_from_config(config, config_dir=examples, output_path=str(examples / "out.csv")))
    assert result.summary["verdict"]["ok"], result.summary["verdict"]
    assert counts == {"validate": 1, "models": 1, "read": 1}


def test_the_python_api_and_the_config_give_the_same_plan_settings(examples: Path) -> None:
    """``anonymize(frame, …)`` validates its own arguments once and runs through the same
    ``anonymize_checked`` the plan's runner calls: the same release from both."""
    import pandas as pd

    from anonkit import anonymize
    from anonkit.plan.load import config_schema, load_input

    config = load_config(examples / "adult-fixed.yaml")
    plan = plan_from_config(config, config_dir=examples, output_path=str(examples / "out.csv"))
    frame, defaults = load_input(config, examples)
    schema = config_schema(config, examples, defaults, frame)
    direct = anonymize(frame, schema, list(plan.models), algorithm=plan.algorithm.name, seed=plan.seed,
                       suppressed=config.output.suppressed, metric=plan.metric, **plan.options)
    ran = run(plan)
    pd.testing.assert_frame_equal(direct.frame.reset_index(drop=True), ran.frame.reset_index(drop=True))
    assert isinstance(plan, Plan)


def test_the_readme_plan_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan example of the Python API page (the README's until issue 26), run from a copy of the
    repository's examples: the plan writes back to YAML as the same plan, and its run holds its models."""
    import re

    page = ROOT / "docs" / "how-to" / "python-api.md"
    snippets = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    snippet = next(s for s in snippets if "plan_from_config" in s)
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(snippet, str(page), "exec"), scope)
    assert scope["result"].summary["satisfied"] and scope["plan"].seed == 3
    assert yaml.safe_load(scope["text"])["seed"] == 3


def test_the_python_api_makes_a_plan_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``anonymize(frame, …)`` makes the same kind of :class:`Plan` a config makes: its options are
    validated once, its models checked once; the plan has no YAML (it holds Python objects) and says so."""
    import pandas as pd

    import anonkit.runner.anonymize as api
    from anonkit import Schema, anonymize
    from anonkit.models import KAnonymity
    from anonkit.plan.arguments import plan_from_arguments

    frame = pd.DataFrame({"age": [30, 31, 32, 33] * 3, "zip": ["1", "2"] * 6, "d": list("abcdefabcdef")})
    schema = Schema.of(quasi=["age", "zip"], insensitive=["d"])
    seen: list[Plan] = []
    validated = {"n": 0}
    original_checked, original_validate = api.anonymize_checked, Algorithm.validate

    def validate(self, given):  # type: ignore[no-untyped-def]
        validated["n"] += 1
        return original_validate(self, given)

    monkeypatch.setattr(Algorithm, "validate", validate)
    def checked(frame, schema, plan, **k):  # type: ignore[no-untyped-def]
        seen.append(plan)
        return original_checked(frame, schema, plan, **k)

    monkeypatch.setattr(api, "anonymize_checked", checked)
    result = anonymize(frame, schema, [KAnonymity(2)], algorithm="flash", seed=4, max_suppression=0.0)
    assert result.summary["satisfied"] and validated["n"] == 1
    (plan,) = seen
    assert isinstance(plan, Plan) and plan.config is None and plan.schema is schema and plan.seed == 4
    assert plan.algorithm.name == "flash" and plan.options["max_suppression"] == 0.0
    assert dataclasses.is_dataclass(plan) and plan.outputs == () and plan.writes == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.seed = 5  # type: ignore[misc]
    with pytest.raises(InputError, match="no YAML config"):
        plan.to_yaml()
    with pytest.raises(InputError, match="max_suppression"):
        plan_from_arguments(schema, [KAnonymity(2)], algorithm="flash", options={"max_suppression": 2})
    with pytest.raises(InputError, match="models"):
        plan_from_arguments(schema, KAnonymity(2))


def test_a_read_only_plan_plans_no_output(examples: Path) -> None:
    """``writes=False`` (audit, explore): the reads are listed, no output is planned or checked; an
    output that a run would refuse (the input itself) does not stop such a plan."""
    config = parse_config({**yaml.safe_load((examples / "adult-fixed.yaml").read_text()),
                           "output": {"path": str(examples / "adult-fixed.yaml")}})
    with pytest.raises(InputError):
        plan_from_config(config, config_dir=examples, config_file=examples / "adult-fixed.yaml")
    plan = plan_from_config(config, config_dir=examples, config_file=examples / "adult-fixed.yaml", writes=False)
    assert plan.outputs == () and plan.writes == () and plan.reads and plan.manifest is None


def _inputs(tmp: Path) -> dict[str, tuple[str, dict]]:
    """The input formats read from a file, each path with the input keys that read it (the compact
    batch readers too)."""
    import pandas as pd

    frame = pd.read_csv(ROOT / "src/anonkit/datasets/data/adult.csv", sep=";", dtype=str)
    frame.to_csv(tmp / "small.csv", index=False, sep=";", lineterminator="\n")
    frame.head(400).to_csv(tmp / "tiny.csv", index=False, sep=";", lineterminator="\n")
    frame.to_parquet(tmp / "adult.parquet", index=False)
    frame.head(300).to_excel(tmp / "adult.xlsx", index=False)
    return {"strict csv": ("tiny.csv", {"separator": ";"}), "arrow csv": ("small.csv", {"separator": ";"}),
            "batched csv": ("small.csv", {"separator": ";", "batch_rows": 5000}),
            "parquet": ("adult.parquet", {}), "batched parquet": ("adult.parquet", {"batch_rows": 5000}),
            "excel": ("adult.xlsx", {})}


def test_the_input_is_read_once_and_hashed_as_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's record of its input's SHA-256 comes from the bytes the reader parsed: no second pass
    over the input (``sha256_of`` is never called on it), and the digest is the file's."""
    import hashlib

    import anonkit.runner.local as local_runner

    hashed: list[str] = []
    original = local_runner.sha256_of
    monkeypatch.setattr(local_runner, "sha256_of", lambda loc: hashed.append(loc) or original(loc))
    base = {"attributes": {"sex": {"role": "quasi"}, "race": {"role": "quasi"},
                           "age": {"role": "quasi", "hierarchy": {"builder": "intervals", "width": 10, "levels": 3}},
                           **{c: {"role": "insensitive"} for c in ("marital-status", "education", "native-country",
                                                                    "workclass", "salary-class", "occupation")}},
            "privacy": [{"model": "k-anonymity", "k": 5}], "algorithm": {"name": "flash"}}
    for what, (name, keys) in _inputs(tmp_path).items():
        config = {**base, "input": {"path": name, **keys}, "output": {"path": f"out-{what.replace(' ', '-')}.csv"}}
        result = run(plan_from_config(parse_config(config), config_dir=tmp_path))
        facts = result.summary["run"]
        assert facts["input_sha256"] == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest(), what
        assert str(tmp_path / name) not in hashed and facts["input"] == str(tmp_path / name), (what, hashed)
        hashed.clear()
