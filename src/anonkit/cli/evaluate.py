"""``anonkit evaluate``: how well classifiers trained on a release predict an attribute."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.options import whole_number
from anonkit.errors import InputError


def evaluate_command(
    config: Annotated[Path, typer.Argument(help="The YAML config: the input, the roles, the release (its output).")],
    target: Annotated[str, typer.Option("--target", help="The attribute the classifiers predict.")],
    release: Annotated[str | None, typer.Option("--release", help="The release to evaluate (default: the config's "
                                                "output).")] = None,
    folds: Annotated[str | None, typer.Option("--folds", help="Folds of the cross-validation (default 5).")] = None,
    sample: Annotated[str | None, typer.Option("--sample", help="Rows each table is cut to, a seeded random sample "
                                               "(default 10000; 0: every row).")] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the sample, the folds and the forest "
                                             "(default 0).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the evaluation as one JSON object.")] = False,
) -> None:
    """Train classifiers on the release and on the original to predict an attribute.

    Logistic regression, naive Bayes and random forest with k-fold cross-validation: accuracy, F1 and
    ROC-AUC against the majority-class baseline, and the share of the original's lift the release keeps."""
    from anonkit.evaluate import DEFAULT_FOLDS, DEFAULT_MAX_ROWS, MODELS, evaluate_config
    from anonkit.release import check_seed

    try:
        n_folds = DEFAULT_FOLDS if folds is None else whole_number(folds, "--folds")
        rows = DEFAULT_MAX_ROWS if sample is None else whole_number(sample, "--sample")
        run_seed = 0 if seed is None else check_seed(whole_number(seed, "--seed"))
        result = evaluate_config(str(config), target, release_path=release, folds=n_folds, seed=run_seed,
                                 max_rows=None if rows == 0 else rows)
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        console.print_json(result)
        return
    o, r = result["original"], result["release"]
    print(f"target: {result['target']} ({o['classes']} classes); features: {', '.join(result['features'])}")
    print(f"rows: original {o['rows']:,}, release {r['rows']:,}; {result['folds']}-fold cross-validation, "
          f"seed {result['seed']}")
    print(f"{'model':<22}{'measure':<10}{'original':>10}{'release':>10}{'kept':>8}")
    for model in ("baseline", *MODELS):
        for m in ("accuracy", "f1", "roc_auc"):
            kept = result["kept"].get(model, {}).get(m) if model != "baseline" else None
            shown = "" if kept is None else f"{100 * kept:.0f} %"
            print(f"{model:<22}{m:<10}{o[model][m]:>10.3f}{r[model][m]:>10.3f}{shown:>8}")
