"""Location cloaking benchmark (paper B §4.3, spec §4.11): the broker's core in batch and streaming mode.

Run: python benchmarks/bench_cloaking.py [--reps N] [--requests N] [--quick]

A synthetic city: a 10 km × 10 km area, subjects on random walks (steps of up to 50 m) with updates
and requests interleaved in time order, one request for every update. Policy k = 5, temporal
fallback on cells of at most 1 km² with t_back = 60 s and max_delay = 120 s, so both cloaking paths
run. Reported (median of ``--reps`` runs):

* batch: 1,000,000 requests (plus as many updates) from 10,000 subjects through ``cloak_batch``, in
  requests per second (target ≥ 100,000/s); the kernel's compile time is excluded (a warm-up run);
* streaming: ``Cloaker.push`` on the first 200,000 messages, in messages and requests per second;
* memory: peak RSS of a fresh process cloaking the same million requests for 1k, 10k and 100k
  subjects, and the growth of the peak above the input arrays — the index is linear in subjects;
* broker: ``anonkit broker`` in a child process on loopback, 20,000 requests from 1,000 subjects sent
  by concurrent httpx clients: throughput and p50/p95/p99 latency, and that no forwarded line leaks.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

AREA = (0.0, 0.0, 10_000.0, 10_000.0)


def city(n_requests: int, n_subjects: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Messages of subjects on random walks: as many updates as requests, in time order."""
    rng = np.random.default_rng(seed)
    n = 2 * n_requests
    subject = rng.integers(0, n_subjects, n)
    start = rng.random((n_subjects, 2)) * AREA[2]
    step = rng.uniform(-50.0, 50.0, (n, 2))
    # each subject's position: its start plus its own steps so far (a cumulative sum per subject)
    order = np.argsort(subject, kind="stable")
    steps = step[order]
    csum = np.cumsum(steps, axis=0)
    first = np.r_[0, np.flatnonzero(np.diff(subject[order])) + 1]
    base = np.repeat(csum[first] - steps[first], np.diff(np.r_[first, n]), axis=0)
    walk = np.empty_like(step)
    walk[order] = csum - base
    pos = start[subject] + walk
    pos = np.abs(pos) % (2 * AREA[2])
    pos = np.where(pos >= AREA[2], 2 * AREA[2] - pos, pos)
    pos = np.minimum(pos, np.nextafter(AREA[2], 0))
    t = np.sort(rng.random(n)) * (n / 1000.0)  # about 1,000 messages a second
    is_request = np.zeros(n, dtype=bool)
    is_request[rng.permutation(n)[:n_requests]] = True
    return {"t": t, "subject": subject, "x": pos[:, 0], "y": pos[:, 1], "is_request": is_request}


def policy():  # type: ignore[no-untyped-def]
    from anonkit.location import Policy

    return Policy(k=5, max_area=1_000_000.0, max_delay=120.0, t_back=60.0)


def run_batch(data: dict[str, np.ndarray]):  # type: ignore[no-untyped-def]
    from anonkit.location import Area, cloak_batch

    return cloak_batch(data["t"], data["subject"], data["x"], data["y"], data["is_request"], Area(*AREA), policy())


def timed(fn, reps: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def batch_section(n_requests: int, n_subjects: int, reps: int) -> None:
    data = city(n_requests, n_subjects)
    t = time.perf_counter()
    run_batch(city(1000, 100))  # compile (or load the cached kernel)
    print(f"kernel compile/load: {time.perf_counter() - t:.1f} s")
    sec, res = timed(lambda: run_batch(data), reps)
    s = res.stats()  # type: ignore[attr-defined]
    rate = n_requests / sec
    print(f"batch: {n_requests:,} requests + {n_requests:,} updates, {n_subjects:,} subjects: {sec:.2f} s "
          f"→ {rate:,.0f} requests/s ({'OK' if rate >= 100_000 else 'BELOW'} the 100,000/s target)")
    print(f"  served {s['served']:,} (spatial {s['spatial']:,}, temporal {s['temporal']:,}), held {s['held']:,}, "
          f"dropped {s['dropped']:,}; area median {s['area']['median']:,.0f} m², p95 {s['area']['p95']:,.0f} m²; "
          f"delay median {s['delay']['median']:.1f} s, p95 {s['delay']['p95']:.1f} s; k achieved {s['k_achieved']}")


def streaming_section(n_messages: int, n_subjects: int, reps: int) -> None:
    from anonkit.location import Area, Cloaker, Message

    data = city(n_messages // 2, n_subjects)
    msgs = [Message(float(t), str(s), float(x), float(y), "request" if r else "update")
            for t, s, x, y, r in zip(data["t"], data["subject"], data["x"], data["y"], data["is_request"],
                                     strict=True)]

    def run() -> int:
        c = Cloaker(Area(*AREA), policy())
        push = c.push
        n = 0
        for m in msgs:
            n += len(push(m))
        c.close()
        return n

    sec, _ = timed(run, reps)
    print(f"streaming Cloaker.push: {len(msgs):,} messages ({len(msgs) // 2:,} requests), {n_subjects:,} subjects: "
          f"{sec:.2f} s → {len(msgs) / sec:,.0f} messages/s, {len(msgs) / 2 / sec:,.0f} requests/s")


def _peak_mib() -> float:
    """The process's peak resident set (VmHWM; ``ru_maxrss`` would carry the parent's over ``exec``)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(n_requests: int, n_subjects: int) -> None:
    """In a fresh process: the peak after the input, the imports and the kernel, then after cloaking."""
    data = city(n_requests, n_subjects)
    run_batch(city(1000, 100))
    before = _peak_mib()
    res = run_batch(data)
    print(json.dumps({"before": before, "after": _peak_mib(), "forwarded": len(res)}))


def memory_section(n_requests: int, subjects: list[int]) -> None:
    print(f"memory (peak RSS of a fresh process, {n_requests:,} requests + as many updates):")
    for n_subjects in subjects:
        out = subprocess.run([sys.executable, __file__, "--child", str(n_requests), str(n_subjects)],
                             capture_output=True, text=True, check=True)
        m = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {n_subjects:>7,} subjects: {m['after']:7.1f} MiB; the run adds {m['after'] - m['before']:6.1f} MiB "
              f"to the input, imports and kernel ({m['before']:.1f} MiB): index, pending window, results")


def broker_section(n_requests: int, n_subjects: int, reps: int) -> None:
    """The HTTP broker on loopback (``anonkit broker``, needs the ``broker`` extra): a real client."""
    try:
        from anonkit.location.broker import loopback_load
    except ImportError:
        print("broker: skipped — install the broker extra (pip install 'anonkit[broker]')")
        return
    runs = [loopback_load(n_requests, n_subjects, seed=rep) for rep in range(reps)]
    med = {key: statistics.median(r[key] for r in runs) for key in ("throughput", "p50_ms", "p95_ms", "p99_ms",
                                                                     "max_ms")}
    last = runs[-1]
    print(f"broker on loopback: {n_requests:,} requests from {n_subjects:,} subjects, {last['concurrency']} "
          f"concurrent clients: {med['throughput']:,.0f} requests/s; latency p50 {med['p50_ms']:.1f} ms, "
          f"p95 {med['p95_ms']:.1f} ms, p99 {med['p99_ms']:.1f} ms, max {med['max_ms']:.1f} ms")
    print(f"  statuses {last['statuses']}; errors {last['errors']}; lines forwarded {last['lines']:,}; "
          f"leaks {sum(r['leaks'] for r in runs)} (must be 0)")


def main(reps: int = 3, n_requests: int = 1_000_000, quick: bool = False) -> None:
    if quick:
        n_requests = min(n_requests, 100_000)
    batch_section(n_requests, 10_000, reps)
    streaming_section(200_000 if not quick else 20_000, 10_000, reps)
    memory_section(n_requests, [1_000, 10_000, 100_000])
    broker_section(20_000 if not quick else 2_000, 1_000, reps)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(int(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 requests (a smoke run)")
    args = parser.parse_args()
    main(args.reps, args.requests, args.quick)
