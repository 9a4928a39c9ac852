"""The broker's forward queue survives a crash and no status claims what did not happen (issue 23).

A cloaked request released to the forward queue reads ``queued`` until the service has accepted it,
then ``forwarded`` (or ``failed`` after the retries); its public message waits in a spool file in the
state folder, so that after ``kill -9`` the restarted broker sends it (at least once, with the same
``Idempotency-Key``), and a request the service had already accepted is not sent again. Real
``anonkit broker`` processes on 127.0.0.1 against tiny services in this process; a torn spool line
reads ``lost``; the spool's reading is checked line by line and by a property over every cut.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from anonkit.location import Area, Policy  # noqa: E402
from anonkit.location import _broker_forward as forward_module  # noqa: E402
from anonkit.location._broker_journal import JOURNAL_FILE, Journal  # noqa: E402
from anonkit.location._broker_spool import SPOOL_FILE, Delivery  # noqa: E402
from anonkit.location.broker import PUBLIC_FIELDS, Tokens, create_app, running  # noqa: E402
from broker_processes import broker_child  # noqa: E402

AREA = Area(0.0, 0.0, 100.0, 100.0)
OPERATOR = "spool-test-operator-token-0123456789abc"
#: where the walker asks from and where its neighbour stands: k = 2 gives the box [25, 50) × [50, 75)
WALKER, NEIGHBOUR = (33.331719, 66.661823), (41.246813, 61.357931)
SECRETS = ["walker", "neighbour", *(str(v) for v in (*WALKER, *NEIGHBOUR))]


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert match, name
    return float(match.group(1))


def settled(client: httpx.Client, rid: str, headers: dict[str, str], timeout: float = 60.0) -> dict:
    """A request's status once it is no longer ``queued``."""
    out: dict = {}

    def done() -> bool:
        out.update(client.get(f"/requests/{rid}", headers=headers).json())
        return out["status"] != "queued"

    wait_for(done, timeout)
    return out


class Service:
    """A location-based service on loopback. It records every call's body and ``Idempotency-Key``
    (``calls``); it answers 200 and keeps the body in ``accepted`` unless it is holding, when it
    reads the call and never answers until :meth:`close`."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.accepted: list[tuple[str, dict]] = []
        self.holding = threading.Event()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                key = self.headers.get("idempotency-key", "")
                with service.lock:
                    service.calls.append((key, body))
                if service.holding.is_set():
                    service.stopping.wait(120)
                    return  # no answer: the broker never hears that it arrived
                with service.lock:
                    service.accepted.append((key, body))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/lbs"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def service() -> Iterator[Service]:
    s = Service()
    try:
        yield s
    finally:
        s.close()


@contextlib.contextmanager
def broker_process(state: Path, forward: str, *extra: str) -> Iterator[tuple[httpx.Client, subprocess.Popen]]:
    """``anonkit broker`` (k = 2, state ``state``) in a child process; yields an operator-less client."""
    args = ["--listen", "127.0.0.1:0", "--forward", forward, "--state", str(state), "--area", "0,0,100,100",
            "--k", "2", *extra]
    with broker_child(args) as (url, proc):
        assert proc.stderr is not None
        # keep reading its log, so that a full pipe never blocks it
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        with httpx.Client(base_url=url, timeout=10.0) as client:
            yield client, proc


def operator_of(state: Path) -> dict[str, str]:
    return bearer((state / "anonkit-broker.token").read_text().strip())


def subject(client: httpx.Client, op: dict[str, str], name: str) -> dict[str, str]:
    return bearer(client.post("/subjects", json={"subject": name}, headers=op).json()["token"])


def ask(client: httpx.Client, me: dict[str, str], payload: str) -> dict:
    out = client.post("/requests", json={"x": WALKER[0], "y": WALKER[1], "payload": payload}, headers=me).json()
    assert out["status"] == "queued", out  # cloaked and released: not yet accepted by the service
    return out


def sent(out: dict, payload: str) -> dict:
    """The public message a request's answer says will be sent."""
    return {"t": out["t"], **out["box"], **out["interval"], "payload": payload}


def journal_statuses(state: Path) -> dict[str, str]:
    last: dict[str, str] = {}
    for line in (state / JOURNAL_FILE).read_text().splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            last[entry["id"]] = entry["status"]
    return last


def queue_and_kill(state: Path, payloads: list[str]) -> tuple[list[dict], dict, list[tuple[str, dict]]]:
    """Run a broker whose service accepts one request ("acked") and then holds every call; queue one
    request per payload, check their statuses, ``kill -9`` it. Returns the answers, the accepted
    request's answer and the calls the holding service saw."""
    with service() as lbs, broker_process(state, lbs.url) as (client, proc):
        op = operator_of(state)
        client.post("/updates", json={"x": NEIGHBOUR[0], "y": NEIGHBOUR[1]}, headers=subject(client, op, "neighbour"))
        me = subject(client, op, "walker")
        acked = ask(client, me, "acked")
        assert settled(client, acked["id"], me)["status"] == "forwarded"
        lbs.holding.set()
        answers = [ask(client, me, payload) for payload in payloads]
        wait_for(lambda: len(lbs.calls) > 1)  # the service holds at least one of them
        assert {client.get(f"/requests/{a['id']}", headers=me).json()["status"] for a in answers} == {"queued"}
        text = client.get("/metrics", headers=op).text
        assert metric(text, "anonkit_broker_forward_queue") == len(payloads)
        assert metric(text, "anonkit_broker_forwarded_total") == 1
        assert client.get("/health", headers=op).json()["queued"] == len(payloads)
        proc.kill()  # SIGKILL: no graceful stop, the queue is gone with the process
        proc.wait(30)
        with lbs.lock:
            held = list(lbs.calls[1:])
    return answers, acked, held


# ---------------------------------------------------------------------------- kill -9, restart
def test_queued_requests_survive_kill_9_and_reach_the_service_after_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    payloads = [f"held-{i}" for i in range(12)]  # more than the 8 deliveries in flight: some wait in the queue
    answers, acked, held = queue_and_kill(state, payloads)
    spool = state / SPOOL_FILE
    assert spool.stat().st_mode & 0o777 == 0o600
    text = spool.read_text()
    for secret in [*SECRETS, (state / "anonkit-broker.token").read_text().strip()]:
        assert secret not in text, secret  # no subject, no exact position, no token
    for answer, payload in zip(answers, payloads, strict=True):
        assert json.dumps(sent(answer, payload), separators=(",", ":")) in text  # exactly what the service gets
    statuses = journal_statuses(state)
    assert statuses[acked["id"]] == "forwarded"
    assert [statuses[a["id"]] for a in answers] == ["queued"] * len(answers)  # truthful after the kill
    assert all(tuple(body) == PUBLIC_FIELDS for _, body in held)

    with service() as lbs, broker_process(state, lbs.url) as (client, proc):
        op = operator_of(state)
        me = subject(client, op, "walker")
        for answer in answers:
            assert settled(client, answer["id"], me) == {"id": answer["id"], "status": "forwarded", "t": answer["t"]}
        assert client.get(f"/requests/{acked['id']}", headers=me).json()["status"] == "forwarded"
        with lbs.lock:
            accepted = list(lbs.accepted)
        # every queued request arrived exactly as cloaked (8 at a time: in any order); the accepted one was not
        # sent again
        by_payload = sorted((body for _, body in accepted), key=lambda b: b["payload"])
        assert by_payload == sorted((sent(a, p) for a, p in zip(answers, payloads, strict=True)),
                                    key=lambda b: b["payload"])
        keys = [key for key, _ in accepted]
        assert len(set(keys)) == len(keys) and all(keys)
        # a call the first service saw but never answered comes again with the same key: it can drop it
        first = {body["payload"]: key for key, body in held}
        assert first and all(dict((b["payload"], k) for k, b in accepted)[p] == k for p, k in first.items())
        text = client.get("/metrics", headers=op).text
        assert metric(text, "anonkit_broker_recovered_total") == len(payloads)
        assert metric(text, "anonkit_broker_forwarded_total") == len(payloads)
        assert metric(text, "anonkit_broker_forward_queue") == 0
        assert metric(text, "anonkit_broker_forward_errors_total") == 0
        assert metric(text, "anonkit_broker_lost_total") == 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    statuses = journal_statuses(state)
    assert [statuses[a["id"]] for a in answers] == ["forwarded"] * len(answers)
    again = Journal(state, 100, spool=True)  # the spool says nothing is left to send
    try:
        assert again.recovered == [] and again.spool is not None and again.spool.queued == {}
    finally:
        again.close()


def test_a_torn_spool_line_reads_as_lost(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    payloads = ["first", "second", "torn"]
    answers, _, _ = queue_and_kill(state, payloads)
    spool = state / SPOOL_FILE
    lines = spool.read_text().splitlines(keepends=True)
    assert '"torn"' in lines[-1]
    spool.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # the broker died while writing it
    with service() as lbs, broker_process(state, lbs.url) as (client, _):
        op = operator_of(state)
        me = subject(client, op, "walker")
        outcome = {p: settled(client, a["id"], me)["status"] for a, p in zip(answers, payloads, strict=True)}
        assert outcome == {"first": "forwarded", "second": "forwarded", "torn": "lost"}  # never "forwarded"
        with lbs.lock:
            assert sorted(body["payload"] for _, body in lbs.accepted) == ["first", "second"]  # 8 at a time
        text = client.get("/metrics", headers=op).text
        assert metric(text, "anonkit_broker_lost_total") == 1 and metric(text, "anonkit_broker_recovered_total") == 2


# ---------------------------------------------------------------------------- in-process brokers
@contextlib.contextmanager
def in_thread(state: Path | None, forward: object, **kw: object) -> Iterator[httpx.Client]:
    app = create_app(AREA, Policy(k=1), forward, operator_token=OPERATOR, state=state, sweep_interval=0.01, **kw)
    with running(app) as url, httpx.Client(base_url=url, timeout=10.0) as client:
        client.app = app  # type: ignore[attr-defined]
        yield client


ME = bearer(Tokens(OPERATOR).issue("me"))
OP = bearer(OPERATOR)


def request(client: httpx.Client, payload: str) -> dict:
    return client.post("/requests", json={"x": 5.5, "y": 5.5, "payload": payload}, headers=ME).json()


def test_a_service_that_is_down_gives_failed_and_is_not_retried_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forward_module, "FORWARD_BACKOFF", 0.01)
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{sock.getsockname()[1]}/lbs"
    with in_thread(tmp_path, down) as client:
        out = request(client, "nobody hears")
        assert out["status"] == "queued"
        assert settled(client, out["id"], ME)["status"] == "failed"
        text = client.get("/metrics", headers=OP).text
        assert metric(text, "anonkit_broker_forward_errors_total") == 1
        assert metric(text, "anonkit_broker_forwarded_total") == 0 and metric(text, "anonkit_broker_forward_queue") == 0
    assert journal_statuses(tmp_path)[out["id"]] == "failed"
    with service() as lbs, in_thread(tmp_path, lbs.url) as client:
        assert client.get(f"/requests/{out['id']}", headers=ME).json()["status"] == "failed"
        control = request(client, "heard")  # control: the working service gets new requests
        assert settled(client, control["id"], ME)["status"] == "forwarded"
        with lbs.lock:
            assert [body["payload"] for _, body in lbs.calls] == ["heard"]  # the failed one is not sent again


def test_a_stop_leaves_what_the_service_holds_queued_for_the_next_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM and Ctrl-C drain the queue for at most FLUSH_TIMEOUT; what the service still holds then
    stays queued in the spool (not failed, not forwarded) and the next start sends it."""
    monkeypatch.setattr(forward_module, "FLUSH_TIMEOUT", 0.2)
    with service() as lbs:
        lbs.holding.set()
        with in_thread(tmp_path, lbs.url) as client:
            ids = [request(client, f"slow-{i}")["id"] for i in range(3)]
            wait_for(lambda: len(lbs.calls) == 3)
        assert [journal_statuses(tmp_path)[rid] for rid in ids] == ["queued"] * 3
    with service() as lbs, in_thread(tmp_path, lbs.url) as client:
        assert [settled(client, rid, ME)["status"] for rid in ids] == ["forwarded"] * 3
        with lbs.lock:
            assert sorted(body["payload"] for _, body in lbs.accepted) == ["slow-0", "slow-1", "slow-2"]


def gated_sink() -> tuple[Callable, threading.Event, list[dict]]:
    """A callable service that takes each record and then holds its delivery until ``gate`` is set."""
    gate = threading.Event()
    got: list[dict] = []

    async def sink(record: dict) -> None:
        import asyncio

        got.append(record)
        while not gate.is_set():
            await asyncio.sleep(0.01)

    return sink, gate, got


def test_without_a_state_folder_a_stop_marks_what_was_not_delivered_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forward_module, "FLUSH_TIMEOUT", 0.2)
    sink, _gate, got = gated_sink()  # never opened: the stop cuts the delivery off
    with in_thread(None, sink) as client:
        ids = [request(client, f"p{i}")["id"] for i in range(2)]
        wait_for(lambda: len(got) == 1)
        app = client.app  # type: ignore[attr-defined]
    broker = app.state.broker
    assert [broker.status(rid, None).status for rid in ids] == ["failed", "failed"]  # never claimed forwarded
    assert broker.counts["failed"] == 2 and broker.queued == 0


def test_a_full_queue_fails_a_release_at_once_and_does_not_spool_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forward_module, "QUEUE_LIMIT", 1)
    sink, gate, got = gated_sink()
    try:
        with in_thread(tmp_path, sink) as client:
            first = request(client, "in the worker")
            wait_for(lambda: len(got) == 1)
            second = request(client, "in the queue")
            third = request(client, "no room")
            assert (first["status"], second["status"], third["status"]) == ("queued", "queued", "failed")
            assert '"no room"' not in (tmp_path / SPOOL_FILE).read_text()
            text = client.get("/metrics", headers=OP).text
            assert metric(text, "anonkit_broker_forward_errors_total") == 1
            assert metric(text, "anonkit_broker_forward_queue") == 2
            gate.set()
            assert [settled(client, r["id"], ME)["status"] for r in (first, second)] == ["forwarded"] * 2
            assert client.get(f"/requests/{third['id']}", headers=ME).json()["status"] == "failed"
    finally:
        gate.set()
    assert [r["payload"] for r in got] == ["in the worker", "in the queue"]


# ---------------------------------------------------------------------------- the spool's reading
def message(payload: str, t: float = 1.0) -> dict:
    return {"t": t, "x0": 0.0, "y0": 0.0, "x1": 50.0, "y1": 50.0, "t0": t, "t1": t, "payload": payload}


def line(rid: str, msg: dict, **extra: object) -> str:
    return json.dumps({"id": rid, "key": f"k-{rid}", "message": {**msg, **extra}}, separators=(",", ":")) + "\n"


def test_the_journal_and_the_spool_are_reconciled_at_start(tmp_path: Path) -> None:
    """Each crash point between the spool's and the journal's lines, and damaged lines."""
    entries = [("a", "pending"), ("b", "queued"), ("b", "forwarded"), ("c", "queued"), ("e", "queued"),
               ("f", "queued"), ("g", "pending"), ("k", "queued")]
    (tmp_path / JOURNAL_FILE).write_text("".join(
        json.dumps({"id": rid, "owner": f"o-{rid}", "status": s, "t": 1.0}) + "\n" for rid, s in entries))
    (tmp_path / SPOOL_FILE).write_text(
        line("a", message("released just before the kill"))  # journalled pending: queued, sent again
        + line("b", message("accepted, done line missing"))  # the journal says forwarded: not sent again
        + line("d", message("journal line missing"))  # unknown to the journal: queued, the operator's only
        + line("e", message("carries a subject"), subject="walker")  # not the public fields: never sent
        + line("f", message("accepted")) + '{"done":"f","status":"forwarded"}\n'  # the journal lags: forwarded
        + line("k", message("not \ud800 ascii"))  # any payload text round-trips (written as ASCII escapes)
        + '{"id":"g","key":"k-g","message":{"t":1.0,"x0"'  # torn, journalled pending
        + '\n{"id":"h","key":"k-h","mess')  # torn, unknown to the journal
    journal = Journal(tmp_path, 100, spool=True)
    try:
        status = {rid: s for rid, (_, s, _) in journal.restored.items()}
        assert status == {"a": "queued", "b": "forwarded", "c": "lost", "d": "queued", "e": "lost",
                          "f": "forwarded", "g": "lost", "h": "lost", "k": "queued"}
        assert journal.lost == 4
        assert [(d.id, d.owner, d.message) for d in journal.recovered] == [
            ("a", "o-a", message("released just before the kill")), ("d", "", message("journal line missing")),
            ("k", "o-k", message("not \ud800 ascii"))]
        assert journal.restored["d"][0] == "" and journal.restored["h"][0] == ""  # no owner: the operator's only
        spool = tmp_path / SPOOL_FILE
        assert spool.stat().st_mode & 0o777 == 0o600
        assert [json.loads(x)["id"] for x in spool.read_text().splitlines()] == ["a", "d", "k"]  # rewritten
        assert spool.read_text().isascii()
    finally:
        journal.close()


def _spooled(folder: Path, n: int, done: set[int]) -> list[Delivery]:
    """Spool ``n`` requests as the broker does (spool line, then journal line), then accept ``done``."""
    journal = Journal(folder, 1000, spool=True)
    assert journal.spool is not None
    out = []
    try:
        for i in range(n):
            d = Delivery(f"r{i}", f"key{i}", message(f"payload {i} " + "é" * i, t=float(i)), f"o{i}", float(i))
            journal.spool.add(d)
            journal.write(d.id, d.owner, "queued", d.t)
            out.append(d)
        for i in sorted(done):
            journal.write(f"r{i}", f"o{i}", "forwarded", float(i))
            journal.spool.done(f"r{i}", "forwarded")
    finally:
        journal.close()
    return out


@settings(max_examples=60)
@given(n=st.integers(1, 6), done=st.sets(st.integers(0, 5)), cut=st.floats(0.0, 1.0))
def test_a_spool_cut_anywhere_sends_whole_messages_or_says_lost(n: int, done: set[int], cut: float) -> None:
    """Whatever byte the spool ends at, each request is exactly one of: sent again with its message
    exactly as spooled (its line survived whole), done (the journal says forwarded), or lost."""
    done = {i for i in done if i < n}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deliveries = _spooled(folder, n, done)
        spool = folder / SPOOL_FILE
        data = spool.read_bytes()
        kept = data[: int(len(data) * cut)]
        spool.write_bytes(kept)
        journal = Journal(folder, 1000, spool=True)
        try:
            recovered = {d.id: d for d in journal.recovered}
            status = {rid: s for rid, (_, s, _) in journal.restored.items()}
        finally:
            journal.close()
    text = kept.decode("utf-8", errors="replace")
    for i, d in enumerate(deliveries):
        whole = line(d.id, d.message).rstrip("\n").replace(f'"key":"k-{d.id}"', f'"key":"{d.key}"')
        if i in done:
            assert status[d.id] == "forwarded" and d.id not in recovered
        elif whole in text:
            assert status[d.id] == "queued" and recovered[d.id].message == d.message
            assert tuple(recovered[d.id].message) == PUBLIC_FIELDS and recovered[d.id].key == d.key
        else:
            assert status[d.id] == "lost" and d.id not in recovered


def test_a_failed_spool_write_does_not_spoil_the_next_line(tmp_path: Path) -> None:
    """A full disk cuts a line short: that request is refused (the broker marks it failed), and the next
    line is not glued onto the broken one (the spool is rewritten from memory first)."""
    journal = Journal(tmp_path, 100, spool=True)
    spool = journal.spool
    assert spool is not None
    first, cut, after = (Delivery(f"r{i}", f"k{i}", message(f"p{i}")) for i in range(3))
    real = spool._handle

    class Full:
        def write(self, text: str) -> int:
            real.write(text[: len(text) // 2])
            real.flush()
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            pass

        def close(self) -> None:
            real.close()

    try:
        spool.add(first)
        spool._handle = Full()  # type: ignore[assignment]
        with pytest.raises(OSError):
            spool.add(cut)
        spool.add(after)
    finally:
        journal.close()
    again = Journal(tmp_path, 100, spool=True)
    try:
        assert [(d.id, d.message) for d in again.recovered] == [("r0", message("p0")), ("r2", message("p2"))]
        assert again.spool is not None and again.spool.torn == 0
    finally:
        again.close()
