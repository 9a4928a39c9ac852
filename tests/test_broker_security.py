"""The location broker trusts no client (issue 23): each attack a tester ran against a live broker,
run again against a live broker on 127.0.0.1 — real uvicorn, in a thread of this process or as
``anonkit broker`` in a child process — with bounded request loops, and a control that passes.

The attacks: a request asking for a weaker k (or a wider area, a longer delay); fake subjects and a
subject moving another; a time far from the clock (freezing it, or a deadline that never comes);
huge bodies (and their echo); non-finite numbers; ``kill -9`` with pending requests; idle and
trickling connections; SIGTERM; pages loading scripts from elsewhere; a broker listening beyond
loopback by default. And ``anonkit cloak`` given a deeply nested JSON line.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from typer.testing import CliRunner  # noqa: E402

from anonkit.cli import app as cli  # noqa: E402
from anonkit.location import Area, Policy  # noqa: E402
from anonkit.location.broker import (  # noqa: E402
    DEFAULT_LISTEN,
    MAX_BODY_BYTES,
    MAX_PAYLOAD,
    Tokens,
    create_app,
    running,
)
from broker_processes import broker_child  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AREA = Area(0.0, 0.0, 100.0, 100.0)
OPERATOR = "security-test-operator-token-0123456789"
TOKENS = Tokens(OPERATOR)
runner = CliRunner()


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def as_subject(name: str) -> dict[str, str]:
    return bearer(TOKENS.issue(name))


OP = bearer(OPERATOR)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def live(policy: Policy, tmp: Path, **kw: object) -> Iterator[httpx.Client]:
    """A broker on 127.0.0.1 (uvicorn in a thread) forwarding to ``tmp/out.jsonl``."""
    idle = kw.pop("idle_timeout", 5.0)
    app = create_app(AREA, policy, tmp / "out.jsonl", operator_token=OPERATOR, sweep_interval=0.01, **kw)
    with running(app, idle_timeout=idle) as url, httpx.Client(base_url=url, timeout=10.0) as client:  # type: ignore[arg-type]
        assert url.startswith("http://127.0.0.1:")
        yield client


def settled(client: httpx.Client, rid: str, headers: dict[str, str], timeout: float = 30.0) -> dict:
    """A request's status once the service has answered for it (no longer ``queued``)."""
    end = time.monotonic() + timeout
    while (out := client.get(f"/requests/{rid}", headers=headers).json())["status"] == "queued":
        assert time.monotonic() < end, "still queued"
        time.sleep(0.01)
    return out


def forwarded(tmp: Path) -> list[dict]:
    path = tmp / "out.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ---------------------------------------------------------------------------- the policy is the server's
def test_a_request_may_ask_for_more_privacy_never_less(tmp_path: Path) -> None:
    policy = Policy(k=5, max_area=2500.0, max_delay=10.0)
    with live(policy, tmp_path, clock=Clock(1000.0)) as client:
        for i in range(5):  # five subjects in one cell: k = 5 is served
            client.post("/updates", json={"x": 10.5 + i, "y": 10.5}, headers=as_subject(f"s{i}")).raise_for_status()
        # the tester's attack: k = 1 (a 1.56 cm box) and k = 2, 38 times: every one refused, nothing forwarded
        for attempt in range(38):
            r = client.post("/requests", json={"x": 10.5, "y": 10.5, "k": 1 + attempt % 4}, headers=as_subject("s0"))
            assert r.status_code == 422, r.text
            [error] = r.json()["detail"]
            assert error["loc"] == ["body", "k"] and "never less" in error["msg"]
        for field, value in (("max_area", 5000.0), ("max_delay", 60.0)):
            r = client.post("/requests", json={"x": 10.5, "y": 10.5, field: value}, headers=as_subject("s0"))
            assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", field]
        assert forwarded(tmp_path) == []
        # controls: the policy itself, and stricter requests
        for extra in ({}, {"k": 5}, {"max_area": 625.0}, {"max_delay": 5.0}, {"on_fail": "hold"}):
            r = client.post("/requests", json={"x": 10.5, "y": 10.5, **extra}, headers=as_subject("s0"))
            assert r.status_code == 200 and r.json()["status"] == "queued", (extra, r.text)
        r = client.post("/requests", json={"x": 10.5, "y": 10.5, "k": 6, "max_delay": 0}, headers=as_subject("s0"))
        assert r.status_code == 200 and r.json()["status"] == "dropped"  # only five subjects: never forwarded
        assert 'anonkit_broker_rejected_total{reason="policy"} 40' in client.get("/metrics", headers=OP).text
    records = forwarded(tmp_path)
    assert len(records) == 5 and all((r["x1"] - r["x0"]) * (r["y1"] - r["y0"]) >= 625.0 for r in records)


def test_fake_subjects_cannot_shrink_a_victims_box(tmp_path: Path) -> None:
    with live(Policy(k=5), tmp_path, clock=Clock(1000.0)) as client:
        client.post("/updates", json={"x": 40.1, "y": 40.1}, headers=as_subject("victim")).raise_for_status()
        forged = Tokens("another-operator-token-0123456789abcdef")
        for i in range(4):  # four fakes beside the victim, three ways: none is counted
            body = {"subject": f"fake{i}", "x": 40.2, "y": 40.2}
            assert client.post("/updates", json=body).status_code == 401
            assert client.post("/updates", json=body, headers=bearer(forged.issue(f"fake{i}"))).status_code == 401
            assert client.post("/updates", json=body, headers=as_subject("attacker")).status_code == 403
        assert client.get("/health", headers=OP).json()["subjects"] == 1
        r = client.post("/requests", json={"x": 40.1, "y": 40.1}, headers=as_subject("victim"))
        assert r.json()["status"] == "dropped"
        assert forwarded(tmp_path) == []
        # control: four subjects the operator registered, each reporting itself
        for i in range(4):
            token = client.post("/subjects", json={"subject": f"n{i}"}, headers=OP).json()["token"]
            client.post("/updates", json={"x": 40.2 + i, "y": 40.2}, headers=bearer(token)).raise_for_status()
        r = client.post("/requests", json={"x": 40.1, "y": 40.1}, headers=as_subject("victim"))
        assert r.json()["status"] == "queued"


def test_tokens_a_subject_moves_and_reads_only_itself(tmp_path: Path) -> None:
    with live(Policy(k=1), tmp_path, clock=Clock(1000.0)) as client:
        alice = client.post("/subjects", json={"subject": "alice"}, headers=OP).json()["token"]
        assert alice == TOKENS.issue("alice")  # the same subject always gets the same token
        rid = client.post("/requests", json={"x": 5.5, "y": 5.5}, headers=bearer(alice)).json()["id"]
        prefix, name, mac = alice.split(".")
        tampered = [f"{prefix}.{name}.{mac[:-2]}AA", f"{prefix}.Ym9i.{mac}", alice + "x", "s1..", "s1", OPERATOR[:-1]]
        for token in tampered:
            r = client.post("/updates", json={"x": 1.5, "y": 1.5}, headers=bearer(token))
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", token
        r = client.post("/updates", json={"x": 1.5, "y": 1.5})
        assert r.status_code == 401 and "subject's token" in r.json()["detail"]
        r = client.post("/updates", json={"x": 1.5, "y": 1.5}, headers={"authorization": f"Basic {alice}"})
        assert r.status_code == 401
        for path in ("/health", "/metrics"):  # the state is the operator's
            assert client.get(path).status_code == 401
            assert client.get(path, headers=bearer(alice)).status_code == 401
            assert client.get(path, headers=OP).status_code == 200
        assert client.post("/subjects", json={"subject": "mallory"}, headers=bearer(alice)).status_code == 401
        # a request is read by its requester or the operator; another subject hears "unknown"
        assert settled(client, rid, bearer(alice))["status"] == "forwarded"
        assert client.get(f"/requests/{rid}", headers=OP).json()["status"] == "forwarded"
        assert client.get(f"/requests/{rid}", headers=as_subject("bob")).status_code == 404
        assert client.get(f"/requests/{rid}").status_code == 401
        # a body naming the caller is fine (7 and "7" are one subject); another subject is a 403
        assert client.post("/updates", json={"subject": 7, "x": 1.5, "y": 1.5}, headers=as_subject("7")).status_code \
            == 200
        assert client.post("/updates", json={"subject": "alice", "x": 1.5, "y": 1.5},
                           headers=as_subject("bob")).status_code == 403
        text = client.get("/metrics", headers=OP).text
        assert 'reason="forbidden"} 1' in text and 'reason="unauthorized"} 0' not in text


# ---------------------------------------------------------------------------- the clock is the server's
def test_a_client_cannot_move_the_wall_clock(tmp_path: Path) -> None:
    clock = Clock(1_700_000_000.0)
    with live(Policy(k=2, max_area=2500.0, max_delay=10.0, on_fail="hold"), tmp_path, clock=clock) as client:
        me = as_subject("me")
        for t in (1e12, 1.7e308, clock.now + 3600, clock.now - 3600, -1.0):
            r = client.post("/updates", json={"x": 1.5, "y": 1.5, "t": t}, headers=me)
            assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "t"], (t, r.text)
            r = client.post("/requests", json={"x": 1.5, "y": 1.5, "t": t}, headers=me)
            assert r.status_code == 422, t
        # nothing froze: a t within the skew, or none, is stamped with the broker's clock
        assert client.post("/updates", json={"x": 1.5, "y": 1.5, "t": clock.now + 20}, headers=me).json() == \
            {"t": clock.now}
        assert client.post("/updates", json={"x": 1.5, "y": 1.5, "t": clock.now - 20},
                           headers=as_subject("you")).json() == {"t": clock.now}
        clock.now += 1
        out = client.post("/requests", json={"x": 80.5, "y": 80.5}, headers=me).json()
        assert out["status"] == "pending" and out["deadline"] == clock.now + 10.0  # the policy's delay, from now
        clock.now += 11
        deadline = time.monotonic() + 10
        while client.get(f"/requests/{out['id']}", headers=me).json()["status"] == "pending":
            assert time.monotonic() < deadline, "the deadline never passed"
            time.sleep(0.02)
        assert client.get(f"/requests/{out['id']}", headers=me).json()["status"] == "held"
        assert 'reason="clock_skew"} 4' in client.get("/metrics", headers=OP).text


def test_a_simulation_clock_is_explicit_and_bounded(tmp_path: Path) -> None:
    with live(Policy(k=1), tmp_path, simulation=True, max_skew=60.0) as client:
        me = as_subject("me")
        r = client.post("/updates", json={"x": 1.5, "y": 1.5}, headers=me)
        assert r.status_code == 422 and "simulation clock" in r.json()["detail"][0]["msg"]
        assert client.get("/health", headers=OP).json()["time"] is None
        assert client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 1000}, headers=me).json() == {"t": 1000.0}
        r = client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 1e12}, headers=me)
        assert r.status_code == 422
        r = client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 1061}, headers=me)
        assert r.status_code == 422 and "--max-skew" in r.json()["detail"][0]["msg"]
        assert client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 1060}, headers=me).json() == {"t": 1060.0}
        assert client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 999}, headers=me).status_code == 409


# ---------------------------------------------------------------------------- the docs' example, as written
_CALL = re.compile(r"^(POST|GET) (\S+) \[(\w+)\] (\{.*?\})  → (.*)$")


def test_the_documented_simulation_example_runs_as_written(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "broker.md").read_text(encoding="utf-8")
    block = text.split("An example with the simulation clock", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    lines = block.strip().splitlines()
    command = lines[0].removeprefix("$ ").split()
    assert command[:2] == ["anonkit", "broker"]
    args = command[2:]
    args[args.index("--forward") + 1] = str(tmp_path / "lbs.jsonl")
    with command_broker(tmp_path, args) as (url, operator, _):
        tokens = {"operator": operator}
        checked = 0
        with httpx.Client(base_url=url, timeout=10.0) as client:
            for line in lines[1:]:
                if line.startswith("service receives "):
                    sent = json.loads(line.removeprefix("service receives "))
                    deadline = time.monotonic() + 10
                    while sent not in forwarded_from(tmp_path / "lbs.jsonl"):
                        assert time.monotonic() < deadline, f"not forwarded: {sent}"
                        time.sleep(0.02)
                    checked += 1
                    continue
                match = _CALL.match(line)
                assert match, line
                method, path, who, body, answer = match.groups()
                r = client.request(method, path, json=json.loads(body), headers=bearer(tokens[who]))
                if answer.startswith("{"):
                    assert r.status_code == 200, (line, r.text)
                    got = r.json()
                    if path == "/subjects":
                        tokens[got["subject"]] = got["token"]
                    got.pop("id", None), got.pop("token", None)
                    assert got == json.loads(answer), line
                else:
                    code, *field = answer.split()
                    assert r.status_code == int(code), (line, r.text)
                    if field:
                        assert r.json()["detail"][0]["loc"] == ["body", *field]
                checked += 1
        assert checked == len(lines) - 1 >= 12


def forwarded_from(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ---------------------------------------------------------------------------- bodies
def raw_call(url: str, head: bytes, body: bytes = b"", *, timeout: float = 10.0) -> bytes:
    """Send ``head`` and ``body`` on a fresh connection; return what the broker answers."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # the broker may close while a body is still being sent
            sock.sendall(body)
        chunks = []
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)


def test_huge_bodies_are_refused_before_they_are_read(tmp_path: Path) -> None:
    token = TOKENS.issue("me")
    with live(Policy(k=1), tmp_path) as client:
        url = str(client.base_url).rstrip("/")
        # 64 MB announced and not one byte of it sent: the 413 comes at once, so it was not read
        head = (f"POST /requests HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer "
                f"{token}\r\ncontent-length: {64 * 2**20}\r\n\r\n").encode()
        answer = raw_call(url, head)
        assert answer.startswith(b"HTTP/1.1 413") and len(answer) < 1000
        # chunked, with no length: counted as it arrives and cut off at the limit
        chunk = b"[" * 65536
        head = (f"POST /requests HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer "
                f"{token}\r\ntransfer-encoding: chunked\r\n\r\n").encode()
        body = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * (MAX_BODY_BYTES // len(chunk) + 4) + b"0\r\n\r\n"
        answer = raw_call(url, head, body)
        assert answer.startswith(b"HTTP/1.1 413") and len(answer) < 1000 and b"[[[" not in answer
        # an unauthenticated body is refused by its size too
        assert raw_call(url, head.replace(token.encode(), b"nobody"), body).startswith(b"HTTP/1.1 413")
        # just under the limit: an error that does not echo it (an unknown key of 900 KB)
        big = json.dumps({"x": 1.5, "y": 1.5, "k" * 900_000: 1})
        r = client.post("/requests", content=big, headers={**bearer(token), "content-type": "application/json"})
        assert r.status_code == 422 and len(r.content) < 2000 and "k" * 100 not in r.text
        # control: the largest payload goes through
        r = client.post("/requests", json={"x": 1.5, "y": 1.5, "payload": "é" * MAX_PAYLOAD}, headers=bearer(token))
        assert r.status_code == 200 and r.json()["status"] == "queued"
        assert 'reason="too_large"} 3' in client.get("/metrics", headers=OP).text


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_are_a_422_never_a_500(tmp_path: Path, literal: str) -> None:
    me = {**as_subject("me"), "content-type": "application/json"}
    with live(Policy(k=1, max_delay=5.0), tmp_path) as client:
        for field in ("x", "y", "t", "k", "max_area", "max_delay", "payload", "subject", "unknown"):
            body = {"x": 1.5, "y": 1.5}
            text = json.dumps(body)[:-1] + f', "{field}": {literal}}}'
            r = client.post("/requests", content=text, headers=me)
            assert r.status_code == 422, (field, r.status_code, r.text)
            assert any(field in e["loc"] for e in r.json()["detail"]), r.text
        # control: the same body with a finite number
        assert client.post("/requests", content='{"x": 1.5, "y": 1.5, "max_area": 100}', headers=me).status_code == 200


def test_bodies_python_cannot_parse_are_refused(tmp_path: Path) -> None:
    me = {**as_subject("me"), "content-type": "application/json"}
    with live(Policy(k=1), tmp_path) as client:
        deep = '{"x": ' + "[" * 100_000 + "]" * 100_000 + ', "y": 1}'
        for text in (deep, '{"x": 1, "y": 1, "k": ' + "7" * 5000 + "}", '{"x": 1, "y": ', '{"x": "\udcff"}'):
            r = client.post("/updates", content=text.encode("utf-8", "surrogatepass"), headers=me)
            assert 400 <= r.status_code < 500 and len(r.content) < 2000, (r.status_code, r.text[:200])


# ---------------------------------------------------------------------------- connections
def test_idle_and_trickling_connections_are_closed(tmp_path: Path) -> None:
    with live(Policy(k=1), tmp_path, idle_timeout=0.5, body_timeout=0.5) as client:
        host, port = str(client.base_url).removeprefix("http://").rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:  # says nothing
            assert sock.recv(1) == b""  # closed by the broker (a hang would fail on the socket timeout)
        head = f"GET /openapi.json HTTP/1.1\r\nhost: x\r\nx-pad: {'a' * 40}\r\n\r\n".encode()
        with socket.create_connection((host, int(port)), timeout=10) as sock:  # one byte every 0.05 s
            closed = False
            for i in range(len(head) - 2):  # never the whole head
                try:
                    sock.sendall(head[i:i + 1])
                except OSError:
                    closed = True
                    break
                time.sleep(0.05)
            if not closed:
                assert sock.recv(1) == b""
        # a body that stops arriving: 408
        me = as_subject("me")["authorization"]
        answer = raw_call(f"http://{host}:{port}", (f"POST /updates HTTP/1.1\r\nhost: x\r\nauthorization: {me}\r\n"
                                                    "content-type: application/json\r\ncontent-length: 100\r\n\r\n"
                                                    '{"x": 1').encode())
        assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
        # control: a prompt client is served, and its kept-alive connection is closed once idle
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(head)
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536)
            assert data.startswith(b"HTTP/1.1 200")
            with contextlib.suppress(OSError):
                while sock.recv(65536):
                    pass


# ---------------------------------------------------------------------------- the command: kill -9, SIGTERM
@contextlib.contextmanager
def command_broker(tmp: Path, args: list[str], *, listen: bool = True) -> Iterator[tuple[str, str, subprocess.Popen]]:
    """``anonkit broker`` in a child process; yields its URL, the operator token and the process."""
    argv = [*(["--listen", "127.0.0.1:0"] if listen else []), *args]
    if "--forward" not in args:
        argv += ["--forward", str(tmp / "out.jsonl")]
    if "--area" not in args:
        argv += ["--area", "0,0,100,100"]
    with broker_child(argv, cwd=tmp, stdout=subprocess.PIPE) as (url, proc):
        folder = Path(args[args.index("--state") + 1]) if "--state" in args else tmp
        yield url, (folder / "anonkit-broker.token").read_text().strip(), proc


def subjects_of(operator: str) -> Callable[[str], dict[str, str]]:
    """Headers with a subject's token under the operator token of a broker the test started."""
    tokens = Tokens(operator)
    return lambda name: bearer(tokens.issue(name))


def test_pending_requests_read_as_lost_after_kill_9(tmp_path: Path) -> None:
    args = ["--simulation-clock", "--k", "3", "--max-delay", "600", "--on-fail", "hold"]
    with command_broker(tmp_path, args) as (url, operator, proc), httpx.Client(base_url=url) as client:
        as_subject = subjects_of(operator)
        client.post("/updates", json={"x": 1.5, "y": 1.5, "t": 10}, headers=as_subject("n1"))
        waiting = client.post("/requests", json={"x": 1.5, "y": 1.5, "t": 11}, headers=bearer(
            client.post("/subjects", json={"subject": "me"}, headers=bearer(operator)).json()["token"]))
        assert waiting.json()["status"] == "pending"
        client.post("/updates", json={"x": 2.5, "y": 2.5, "t": 12}, headers=as_subject("n2"))
        served = client.post("/requests", json={"x": 2.5, "y": 2.5, "t": 13}, headers=as_subject("n2")).json()
        proc.kill()  # SIGKILL: no graceful stop
        proc.wait(30)
    journal = [json.loads(line) for line in (tmp_path / "anonkit-broker-requests.jsonl").read_text().splitlines()]
    # no subject, no position: each entry holds a random id, a keyed owner hash, a status and a time
    # (compared as values: a random id may contain "me" or "n2" by chance)
    assert journal and all(set(entry) == {"id", "owner", "status", "t"} for entry in journal)
    values = {str(value) for entry in journal for value in entry.values()}
    assert not values & {"me", "n1", "n2", "1.5", "2.5"}
    assert (tmp_path / "anonkit-broker-requests.jsonl").stat().st_mode & 0o777 == 0o600
    with command_broker(tmp_path, args) as (url, operator2, _), httpx.Client(base_url=url) as client:
        as_subject = subjects_of(operator2)
        assert operator2 == operator  # the token file is reused, so the subjects' tokens still hold
        me = bearer(client.post("/subjects", json={"subject": "me"}, headers=bearer(operator)).json()["token"])
        rid = waiting.json()["id"]
        assert client.get(f"/requests/{rid}", headers=me).json() == {"id": rid, "status": "lost", "t": 11.0}
        assert client.get(f"/requests/{rid}", headers=bearer(operator)).json()["status"] == "lost"
        assert client.get(f"/requests/{rid}", headers=as_subject("n2")).status_code == 404  # not n2's
        # released just before the kill: delivered then, or from the spool now; either way it ends forwarded
        assert served["status"] == "queued"
        assert settled(client, served["id"], as_subject("n2"))["status"] == "forwarded"
        assert client.get("/requests/unknown-id", headers=me).status_code == 404  # control: unknown is unknown
        assert "anonkit_broker_lost_total 1" in client.get("/metrics", headers=bearer(operator)).text


def test_sigterm_stops_gracefully_with_the_documented_status(tmp_path: Path) -> None:
    args = ["--k", "2", "--max-delay", "600", "--on-fail", "hold", "--max-area", "625"]
    with command_broker(tmp_path, args) as (url, operator, proc), httpx.Client(base_url=url) as client:
        as_subject = subjects_of(operator)
        client.post("/updates", json={"x": 1.5, "y": 1.5}, headers=as_subject("a"))
        assert client.post("/requests", json={"x": 2.5, "y": 2.5, "payload": "sent"},
                           headers=as_subject("b")).json()["status"] == "queued"
        waiting = client.post("/requests", json={"x": 90.5, "y": 90.5}, headers=as_subject("c")).json()
        assert waiting["status"] == "pending"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    docs = (ROOT / "docs" / "broker.md").read_text()
    assert "**0 after SIGTERM**" in docs and "**130 after Ctrl-C**" in docs
    assert proc.returncode == 0, err
    assert "Traceback" not in err and operator not in err
    assert [r["payload"] for r in forwarded(tmp_path)] == ["sent"]  # the queue was flushed
    lines = [json.loads(line) for line in (tmp_path / "anonkit-broker-requests.jsonl").read_text().splitlines()]
    assert [line["status"] for line in lines if line["id"] == waiting["id"]][-1] == "held"  # resolved, not lost


def test_the_broker_listens_on_loopback_by_default(tmp_path: Path) -> None:
    with contextlib.ExitStack() as stack:
        try:
            url, _, proc = stack.enter_context(command_broker(tmp_path, [], listen=False))
        except AssertionError:  # the default port is taken here: the refusal still names the address
            url = None
        if url is not None:
            assert url == f"http://{DEFAULT_LISTEN}"
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
            assert proc.returncode == 0
    if url is None:
        res = runner.invoke(cli, ["broker", "--forward", str(tmp_path / "o.jsonl"), "--area", "0,0,1,1"])
        assert f"cannot listen on {DEFAULT_LISTEN}" in res.stderr
    assert DEFAULT_LISTEN.startswith("127.0.0.1:")
    assert DEFAULT_LISTEN in runner.invoke(cli, ["broker", "--help"], terminal_width=200).stdout


# ---------------------------------------------------------------------------- pages
def test_no_page_loads_anything_from_elsewhere(tmp_path: Path) -> None:
    with live(Policy(k=1), tmp_path) as client:
        spec = client.get("/openapi.json")
        assert spec.status_code == 200
        paths = ["/", "/docs", "/redoc", "/docs/oauth2-redirect", "/openapi.json"]
        paths += [p for p, ops in spec.json()["paths"].items() if "get" in ops and "{" not in p]
        for path in paths:
            for headers in ({}, OP):
                r = client.get(path, headers=headers)
                assert r.status_code < 500
                assert not re.search(r"https?://|//cdn|<script", r.text, re.I), (path, r.text[:200])
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404


# ---------------------------------------------------------------------------- start-up refusals
def test_the_operator_token_file_is_private(tmp_path: Path) -> None:
    token = tmp_path / "anonkit-broker.token"
    args = ["broker", "--listen", "127.0.0.1:0", "--forward", str(tmp_path / "o.jsonl"), "--area", "0,0,1,1"]
    token.write_text("x" * 40 + "\n")
    token.chmod(0o644)
    res = runner.invoke(cli, args)
    assert res.exit_code == 2 and "chmod 600" in res.stderr and "x" * 40 not in res.stderr
    token.chmod(0o600)
    token.write_text("short\n")
    res = runner.invoke(cli, args)
    assert res.exit_code == 2 and "at least 32 characters" in res.stderr
    res = runner.invoke(cli, ["broker", "--forward", "http://127.0.0.1:9/lbs", "--area", "0,0,1,1"])
    assert res.exit_code == 2 and "--state is needed" in res.stderr
    res = runner.invoke(cli, [*args, "--max-skew", "nan"])
    assert res.exit_code == 2 and "--max-skew" in res.stderr


def test_a_second_broker_on_the_same_state_is_refused(tmp_path: Path) -> None:
    with command_broker(tmp_path, []) as (_, _, proc):
        res = runner.invoke(cli, ["broker", "--listen", "127.0.0.1:0", "--forward", str(tmp_path / "out2.jsonl"),
                                  "--area", "0,0,1,1"])
        assert res.exit_code == 2 and "another broker" in res.stderr
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


# ---------------------------------------------------------------------------- anonkit cloak's input
@pytest.mark.parametrize(("value", "words"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("7" * 5000, "malformed JSON"),
])
def test_cloak_refuses_a_json_line_python_cannot_parse(tmp_path: Path, value: str, words: str) -> None:
    good = '{"t": 1, "subject": "a", "x": 1, "y": 1, "kind": "update"}'
    src = tmp_path / "in.jsonl"
    src.write_text(good + "\n" + good[:-1] + f', "payload": {value}}}\n')
    res = runner.invoke(cli, ["cloak", str(src), "--area", "0,0,10,10", "--output", str(tmp_path / "out.jsonl")])
    assert res.exit_code == 2 and (res.exception is None or isinstance(res.exception, SystemExit))
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: line 2:") and words in lines[0], res.stderr
    assert not (tmp_path / "out.jsonl").exists()
    src.write_text(good + "\n")  # control
    assert runner.invoke(cli, ["cloak", str(src), "--area", "0,0,10,10"]).exit_code == 0


# ---------------------------------------------------------------------------- bounded state
def test_a_subject_may_keep_only_so_many_requests_pending(tmp_path: Path) -> None:
    from anonkit.location._broker_state import MAX_PENDING_PER_SUBJECT

    with live(Policy(k=5, max_area=2500.0, max_delay=60.0), tmp_path, clock=Clock(1000.0)) as client:
        for _ in range(MAX_PENDING_PER_SUBJECT):
            r = client.post("/requests", json={"x": 1.5, "y": 1.5}, headers=as_subject("me"))
            assert r.json()["status"] == "pending"
        r = client.post("/requests", json={"x": 1.5, "y": 1.5}, headers=as_subject("me"))
        assert r.status_code == 429 and "wait for one to finish" in r.json()["detail"]
        # control: another subject is not limited by it
        assert client.post("/requests", json={"x": 1.5, "y": 1.5}, headers=as_subject("you")).status_code == 200


def test_the_journal_survives_a_torn_line_and_compacts(tmp_path: Path) -> None:
    from anonkit.location._broker_journal import COMPACT_FACTOR, JOURNAL_FILE, Journal

    path = tmp_path / JOURNAL_FILE
    path.write_text('{"id":"a","owner":"o1","status":"pending","t":1.0}\n'
                    '{"id":"b","owner":"o2","status":"pending","t":2.0}\n'
                    '{"id":"b","owner":"o2","status":"forwarded","t":2.0}\n'
                    '{"id":"c","owner":"o3","sta')  # the broker died while writing
    journal = Journal(tmp_path, limit=2)
    try:
        assert dict(journal.restored) == {"a": ("o1", "lost", 1.0), "b": ("o2", "forwarded", 2.0)}
        assert journal.lost == 1 and path.stat().st_mode & 0o777 == 0o600
        with pytest.raises(Exception, match="another broker"):
            Journal(tmp_path, limit=2)
        for i in range(COMPACT_FACTOR * 2 - 1):
            journal.write(f"n{i}", "o", "held", 3.0)
        assert journal.due()
        journal.compact({"n7": ("o", "held", 3.0)})
        assert not journal.due() and path.read_text().count("\n") == 1
    finally:
        journal.close()
    again = Journal(tmp_path, limit=2)  # the lock was released
    assert dict(again.restored) == {"n7": ("o", "held", 3.0)}
    again.close()
