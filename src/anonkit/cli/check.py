"""``anonkit check`` and ``anonkit analyze``: measure any table, anonkit's or not."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.printers.analysis import print_check, print_leakage, print_post
from anonkit.cli.running import interruptible
from anonkit.errors import InputError


def names(text: str) -> list[str]:
    """A comma-separated flag as its names, blanks dropped."""
    return [x.strip() for x in text.split(",") if x.strip()]


def check(
    data: Annotated[str, typer.Argument(help="Table to check (CSV, Parquet, SQLite).")],
    qi: Annotated[str, typer.Option("--qi", help="Quasi-identifiers, comma-separated.")],
    sensitive: Annotated[str, typer.Option("--sensitive", help="Sensitive attributes, comma-separated.")] = "",
    hierarchy: Annotated[
        list[str] | None, typer.Option("--hierarchy", help="NAME=FILE: hierarchy of a sensitive attribute, or of "
                                          "a quasi-identifier (to recount --population).")
    ] = None,
    numeric: Annotated[str, typer.Option("--numeric", help="Sensitive attributes ordered as numbers (default: "
                                         "those whose values are all numbers).")] = "",
    categorical: Annotated[str, typer.Option("--categorical", help="Sensitive attributes that are nominal even "
                                             "though their values are numbers.")] = "",
    person: Annotated[str | None, typer.Option("--person", help="The column naming each row's person (several "
                                               "rows per person): class sizes count persons.")] = None,
    categories: Annotated[
        list[str] | None, typer.Option("--categories", help="NAME=FILE: categories of a sensitive attribute (CSV: "
                                       "value,category with a header) — reports θ-sensitivity.")
    ] = None,
    category_order: Annotated[
        list[str] | None, typer.Option("--category-order", help="NAME=A,B,C: its categories from lowest to highest "
                                       "(default Asymptomatic,Low,Mild,High,Severe).")
    ] = None,
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator.")] = ",",
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    population: Annotated[str | None, typer.Option("--population", help="A table of the population the records "
                                                   "come from: reports k-map (the fewest population records a "
                                                   "released class covers) and δ-presence's bounds. A generalized "
                                                   "quasi-identifier needs its --hierarchy.")] = None,
    subset: Annotated[str | None, typer.Option("--subset", help="With --population: the research sample's rows "
                                               "(a file of population rows) the release was made from; "
                                               "δ-presence counts them.")] = None,
    population_separator: Annotated[str | None, typer.Option("--population-separator", help="CSV field separator "
                                                             "of --population and --subset (default: "
                                                             "--separator).")] = None,
    weight: Annotated[str | None, typer.Option("--weight", help="The sampling-weight column (numbers >= 1): "
                                               "reports sdcMicro's individual risk (Benedetti–Franconi), global "
                                               "risk and expected re-identifications, the population estimated "
                                               "from the weights.")] = None,
    household: Annotated[str | None, typer.Option("--household", help="The household-id column: reports "
                                                  "sdcMicro's household risk.")] = None,
    suda: Annotated[bool, typer.Option("--suda2", help="Report SUDA2 on the quasi-identifiers: DIS-SUDA scores "
                                       "and the attributes' contributions (sdcMicro's suda2).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Report the privacy parameters a table achieves (k, l, t, β, δ, θ; with --population k-map and
    δ-presence; with --weight, --household or --suda2 sdcMicro's survey risk) — any table, anonkit's or not."""
    from anonkit.io import read_table
    from anonkit.verifier import check as check_table

    start = time.perf_counter()

    def job() -> dict:
        qis = names(qi)
        if not qis:  # with no quasi-identifier every record is in one class: k would be the table's size
            raise InputError("no quasi-identifier was given; name the columns an attacker may know, e.g. "
                             "--qi age,zip", key="--qi", value=qi)
        frame = read_table(data, separator=separator, table=table)
        unknown = [q for q in qis if q not in frame.columns]
        if unknown:
            raise InputError(f"--qi names an unknown column; the table has: {', '.join(map(str, frame.columns))}",
                             column=unknown[0])
        if population is None and (subset is not None or population_separator is not None):
            flag = "--subset" if subset is not None else "--population-separator"
            raise InputError(f"{flag} goes with --population (the population table the release is counted in)",
                             key=flag)
        hierarchies = read_hierarchies(hierarchy or [])
        quasi = {n: h for n, h in hierarchies.items() if n in qis}  # the population recount's; the rest: sensitive
        if quasi and population is None:
            raise InputError("a quasi-identifier's --hierarchy is read to recount a population: give --population",
                             column=next(iter(quasi)), key="--hierarchy")
        cats, orders = read_categories(categories or [], category_order or [])
        survey = None
        if weight is not None or household is not None or suda:  # checked before the other figures' work
            from anonkit.audit.survey import survey_figures

            survey = survey_figures(frame, qis, weight=weight, household=household, suda=suda)
        report = check_table(frame, qis, names(sensitive),
                             hierarchies={n: h for n, h in hierarchies.items() if n not in quasi},
                             numeric=names(numeric), categorical=names(categorical), person=person, categories=cats,
                             category_orders=orders)
        if population is not None:
            report["population"] = population_report(frame, qis, quasi, population, subset,
                                                     separator if population_separator is None
                                                     else population_separator)
        if survey is not None:
            report["survey"] = survey
        return report

    try:
        report = interruptible(job)
    except InputError as exc:
        console.fail(exc, 2)
    report["seconds"] = round(time.perf_counter() - start, 6)
    if as_json:
        console.print_json(report)
        return
    print_check(data, report)


def population_report(frame: object, qis: list[str], hierarchies: dict, path: str, subset: str | None,
                      separator: str) -> dict:
    """``--population`` (and ``--subset``): k-map and δ-presence of the table
    (:func:`anonkit.audit.population.population_figures`), with the population's file."""
    from anonkit.audit.population import population_figures
    from anonkit.io import read_table

    pop = read_table(path, separator=separator)
    sub = None if subset is None else read_table(subset, separator=separator)
    out = population_figures(frame, qis, pop, hierarchies, subset=sub)  # type: ignore[arg-type]
    return {"file": path, **({"subset": subset} if subset is not None else {}), **out}


def read_hierarchies(items: list[str]) -> dict:
    """``--hierarchy NAME=FILE`` flags as hierarchies by name."""
    from anonkit.hierarchy import read_hierarchy

    hierarchies = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            raise InputError("--hierarchy takes NAME=FILE", value=item)
        hierarchies[name] = read_hierarchy(path, name=name)
    return hierarchies


def read_categories(items: list[str], order_items: list[str]) -> tuple[dict, dict]:
    """``--categories NAME=FILE`` and ``--category-order NAME=A,B,C`` flags as categories and orders by name."""
    from anonkit.io.categories import read_categories as read_file

    cats, orders = {}, {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            raise InputError("--categories takes NAME=FILE", value=item)
        cats[name] = read_file(path, key="--categories")
    for item in order_items:
        name, sep, order = item.partition("=")
        if not sep or not names(order):
            raise InputError("--category-order takes NAME=A,B,C", value=item)
        orders[name] = names(order)
    return cats, orders


def analyze(
    data: Annotated[str, typer.Argument(help="A table (CSV, Parquet, SQLite): the data, or a release with "
                                        "--critical.")],
    attributes: Annotated[str, typer.Option("--attributes", help="Attributes to measure, comma-separated "
                                            "(default: every column).")] = "",
    max_size: Annotated[int, typer.Option("--max-size", help="Measure combinations of up to this many "
                                          "attributes.")] = 2,
    sets: Annotated[bool, typer.Option("--sets", help="Measure every subset of --attributes.")] = False,
    tau: Annotated[float, typer.Option("--tau", help="Leakage at or above this is vulnerable.")] = 0.5,
    critical: Annotated[str, typer.Option("--critical", help="Post-analytics: the critical attributes of a "
                                          "release, comma-separated.")] = "",
    original: Annotated[str | None, typer.Option("--original", help="Post-analytics: the data the release came "
                                                 "from (leakage before).")] = None,
    rho: Annotated[float, typer.Option("--rho", help="Post-analytics: a class whose most frequent critical value "
                                       "reaches this share is vulnerable.")] = 0.8,
    separator: Annotated[str | None, typer.Option("--separator", "--sep", help="DATA's CSV field separator "
                                                  "(default: sniffed from the file).")] = None,
    original_separator: Annotated[str | None, typer.Option("--original-separator", "--original-sep",
                                                           help="--original's CSV field separator (default: "
                                                           "sniffed from that file).")] = None,
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """How much each attribute and combination leaks (Longpre's normalized leakage, paper C), ranked,
    with the vulnerable ones and suggested quasi-identifiers.

    With --critical, what a release still lets an attacker infer, class by class."""
    from anonkit.analytics import leakage, post_analytics
    from anonkit.start import read_input

    def job() -> dict:
        if original is None and original_separator is not None:
            raise InputError("--original-separator goes with --original", key="original-separator")
        if original is not None and not critical:
            raise InputError("--original goes with --critical (post-analytics of a release)", key="original")
        frame = read_input(data, separator=separator, table=table)[0]
        if critical:  # each file read with its own separator: a release is often written with another
            before = read_input(original, separator=original_separator)[0] if original is not None else None
            return {"post_analytics": post_analytics(frame, names(critical), original=before, rho=rho).summary}
        return leakage(frame, names(attributes) or None, max_size=max_size, sets=sets, tau=tau)

    try:
        report = interruptible(job)
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        console.print_json(report)
        return
    if "post_analytics" in report:
        print_post(report["post_analytics"])
        return
    print_leakage(data, report, tau)
