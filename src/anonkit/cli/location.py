"""``anonkit cloak`` and ``anonkit broker``: location cloaking of a stream and the trusted broker over HTTP."""

from __future__ import annotations

from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.options import whole_number
from anonkit.cli.printers.listings import print_cloak
from anonkit.cli.running import interruptible
from anonkit.errors import InputError

AREA_HELP = "The service's whole area X0,Y0,X1,Y1 (positions outside it are errors)."
K_HELP = "k_min: subjects a cloaked box (or interval) must hold, the requester included."
T_BACK_HELP = "Temporal cloaking may count visits this long before the request."
MAX_AREA_HELP = "The largest box a user accepts (default: the whole area)."
MAX_DELAY_HELP = "The longest delay a user accepts for temporal cloaking (0: no temporal cloaking)."
MIN_SIDE_HELP = "The smallest cell side (resolution floor)."
ON_FAIL_HELP = "What happens to a request no cloaking can serve within the limits: hold or drop (never forwarded)."


def policy_of(k: str, t_back: str, max_area: str | None, max_delay: str, on_fail: str, min_side: str | None):
    """The cloaking policy of the command line's flags (errors name the flag)."""
    from anonkit.location import Policy

    def number(text: str, flag: str, *, positive: bool = False) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{flag} must be a number", key=flag.lstrip("-"), value=text) from None
        if value != value or value in (float("inf"), float("-inf")) or value < 0 or (positive and value == 0):
            raise InputError(f"{flag} must be a {'positive' if positive else 'non-negative'} number",
                             key=flag.lstrip("-"), value=text)
        return value

    k_value = whole_number(k, "--k")
    if k_value < 1:
        raise InputError("--k must be at least 1", key="k", value=k)
    if on_fail not in ("hold", "drop"):
        raise InputError("--on-fail must be hold or drop", key="on-fail", value=on_fail)
    return Policy(
        k=k_value, t_back=number(t_back, "--t-back"), max_delay=number(max_delay, "--max-delay"),
        max_area=None if max_area is None else number(max_area, "--max-area", positive=True),
        on_fail=on_fail,  # type: ignore[arg-type]
        min_side=None if min_side is None else number(min_side, "--min-side", positive=True),
    )


def seconds_of(text: str | None, flag: str) -> float | None:
    """A ``flag`` giving seconds as a non-negative finite number (None when not given)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{flag} must be a number of seconds", key=flag.lstrip("-"), value=text) from None
    if not (value >= 0 and value != float("inf")):
        raise InputError(f"{flag} must be a non-negative number of seconds", key=flag.lstrip("-"), value=text)
    return value


def cloak(
    stream: Annotated[str, typer.Argument(help="Messages t,subject,x,y,kind,payload in time order: CSV (header) or "
                                          "JSON Lines, a file or - for stdin.")],
    area: Annotated[str, typer.Option("--area", help=AREA_HELP)],
    k: Annotated[str, typer.Option("--k", help=K_HELP)] = "5",
    t_back: Annotated[str, typer.Option("--t-back", help=T_BACK_HELP)] = "0",
    max_area: Annotated[str | None, typer.Option("--max-area", help=MAX_AREA_HELP)] = None,
    max_delay: Annotated[str, typer.Option("--max-delay", help=MAX_DELAY_HELP)] = "0",
    on_fail: Annotated[str, typer.Option("--on-fail", help=ON_FAIL_HELP)] = "drop",
    min_side: Annotated[str | None, typer.Option("--min-side", help=MIN_SIDE_HELP)] = None,
    output: Annotated[str | None, typer.Option("--output", help="Write the forwarded requests here (default: "
                                               "stdout).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object (on stderr when the "
                                          "requests go to stdout).")] = False,
) -> None:
    """Cloak a stream of location requests as a trusted broker would (paper B §4.3; spec §4.11).

    Each request's position becomes a quadtree cell holding at least k subjects (spatial cloaking)
    or, failing that within --max-area, the request waits until k subjects visited its cell
    (temporal cloaking, up to --max-delay); otherwise it is held or dropped, never forwarded
    uncloaked. Writes one row per forwarded request: t, x0, y0, x1, y1, t0, t1, payload."""
    from anonkit.location import Area
    from anonkit.location.stream import run_stream

    try:
        policy = policy_of(k, t_back, max_area, max_delay, on_fail, min_side)
        box = Area.parse(area)
        summary = interruptible(lambda: run_stream(stream, area=box, policy=policy, output=output))
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        text = console.json_text(summary)
        if output is None:
            console.err.print(text, highlight=False, markup=False, soft_wrap=True)
        else:
            print(text)
        return
    print_cloak(summary, console.err if output is None else console.out)


def broker(
    forward: Annotated[str, typer.Option("--forward", help="The location-based service's URL (cloaked requests are "
                                         "POSTed as JSON) or a file (one JSON line per cloaked request).")],
    area: Annotated[str, typer.Option("--area", help=AREA_HELP)],
    listen: Annotated[str | None, typer.Option("--listen", help="HOST:PORT to serve on (default 127.0.0.1:8700: "
                                               "loopback only).")] = None,
    k: Annotated[str, typer.Option("--k", help=K_HELP + " A request may ask for more, never less.")] = "5",
    t_back: Annotated[str, typer.Option("--t-back", help=T_BACK_HELP)] = "0",
    max_area: Annotated[str | None, typer.Option("--max-area", help=MAX_AREA_HELP)] = None,
    max_delay: Annotated[str, typer.Option("--max-delay", help=MAX_DELAY_HELP)] = "0",
    on_fail: Annotated[str, typer.Option("--on-fail", help=ON_FAIL_HELP)] = "drop",
    min_side: Annotated[str | None, typer.Option("--min-side", help=MIN_SIDE_HELP)] = None,
    state: Annotated[str | None, typer.Option("--state", help="Folder for the operator token (anonkit-broker.token, "
                                              "mode 0600, written when missing), the request journal and the spool "
                                              "of queued requests (default: the --forward file's folder; required "
                                              "with a URL).")] = None,
    simulation_clock: Annotated[bool, typer.Option("--simulation-clock", help="Take the time from the bodies' t "
                                                   "(required, never backwards) instead of the wall clock.")] = False,
    max_skew: Annotated[str | None, typer.Option("--max-skew", help="Seconds a body's t may differ from the broker's "
                                                 "clock (with --simulation-clock: may step ahead of the latest t; "
                                                 "default 30).")] = None,
    idle_timeout: Annotated[str | None, typer.Option("--idle-timeout", help="Seconds a connection may stay without "
                                                     "sending a whole request (default 5).")] = None,
) -> None:
    """Run the trusted location broker over HTTP (JSON).

    Subjects post position updates and requests with their bearer token, cloaked requests go to the
    service (never a subject or an exact position); the operator registers subjects and reads /health
    and /metrics with the operator token. Ctrl-C exits 130, SIGTERM 0, both after a graceful stop.
    Needs the broker extra (pip install "anonkit[broker]")."""
    from anonkit.location import Area

    try:
        policy = policy_of(k, t_back, max_area, max_delay, on_fail, min_side)
        box = Area.parse(area)
        skew, idle = seconds_of(max_skew, "--max-skew"), seconds_of(idle_timeout, "--idle-timeout")
        try:
            from anonkit.location.broker import serve
        except ImportError as exc:
            raise InputError(f"the broker needs its extra: pip install 'anonkit[broker]' ({exc.name} is missing)"
                             ) from None
        serve(listen, forward, box, policy, state=state, simulation=simulation_clock, max_skew=skew,
              idle_timeout=idle)
    except InputError as exc:
        console.fail(exc, 2)
    except KeyboardInterrupt:
        console.err.print("interrupted: the broker stopped", highlight=False, markup=False)
        raise typer.Exit(130) from None
    console.err.print("the broker stopped (SIGTERM)", highlight=False, markup=False)
