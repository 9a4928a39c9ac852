"""A throwaway PostgreSQL server for the tests marked ``postgres``: the :func:`pg_server` fixture.

The server is Debian's PostgreSQL (the ``postgresql`` package puts ``initdb``, ``pg_ctl`` and
``postgres`` in ``/usr/lib/postgresql/<version>/bin``; the newest is used, then any ``initdb`` on
``PATH``). Once per test session (per pytest-xdist worker) the fixture

* makes a temporary directory and runs ``initdb`` there with a superuser ``anonkit`` whose password
  (random, with characters a URI must escape) is checked by ``scram-sha-256`` on every connection,
  local or TCP;
* starts it with ``pg_ctl`` on a free loopback port (``127.0.0.1`` only, the Unix socket in the
  temporary directory, ``fsync`` off: the data is thrown away), waiting until it accepts
  connections, and creates the database ``anonkit_test``;
* gives each test that asks for :func:`pg_db` a fresh database of its own, dropped after the test;
* at the end stops it (``pg_ctl stop -m fast``) and removes the directory.

``initdb`` and ``postgres`` refuse to run as root. When the tests run as root (CI containers) the
server runs as an unprivileged account instead: the ``postgres`` account the Debian package creates,
else ``nobody``; the temporary directory is handed to it with ``chown`` and the commands are started
with :mod:`subprocess`'s ``user=``/``group=`` (no ``sudo`` or ``runuser`` needed). Run as any other
user, the server runs as that user, in the usual temporary directory. Both ways are tested
(``tests/test_pg_fixture.py``): the one the tests take runs the session's server, and the other runs
for real in a child process — as root, one that drops to ``nobody`` before starting a server; as
another user, the commands for root are checked as built. Nothing else on the machine is touched:
no system cluster, no service, no file outside the temporary directory.

Missing binaries fail the tests (they do not skip them): install the server with
``apt-get install postgresql`` (``.ci/run`` does).
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

#: the database the tests use (created at start), the superuser and the host the server listens on
DATABASE = "anonkit_test"
USER = "anonkit"
HOST = "127.0.0.1"
_INSTALL = "install Debian's PostgreSQL server to run the postgres tests: apt-get install postgresql"


@dataclass(frozen=True)
class PgServer:
    """A running server: where it listens and how to log in."""

    host: str
    port: int
    user: str
    password: str
    database: str
    directory: Path

    def uri(self, database: str | None = None, *, password: str | None = None, host: str | None = None,
            port: int | None = None) -> str:
        """A ``postgresql://`` URI with the password percent-encoded (``password`` overrides it)."""
        secret = quote(self.password if password is None else password, safe="")
        return (f"postgresql://{self.user}:{secret}@{host or self.host}:{port or self.port}/"
                f"{database or self.database}")

    def db(self, name: str | None = None) -> PgDatabase:
        """A database of this server (the test database by default)."""
        return PgDatabase(self, name or self.database)

    def create_database(self, name: str) -> PgDatabase:
        """A new empty database."""
        self.db("postgres").execute(f'CREATE DATABASE "{name}"')
        return self.db(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, closing what is still connected to it."""
        self.db("postgres").execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass(frozen=True)
class PgDatabase:
    """One database of a :class:`PgServer`, with helpers to set it up and look into it."""

    server: PgServer
    name: str

    def uri(self, **changes: Any) -> str:
        """Its ``postgresql://`` URI (``password``, ``host``, ``port`` override the server's)."""
        return self.server.uri(self.name, **changes)

    def connect(self, *, autocommit: bool = True) -> Any:
        """An ADBC DB-API connection (autocommit by default)."""
        from adbc_driver_postgresql import dbapi

        return dbapi.connect(self.uri(), autocommit=autocommit)

    def execute(self, *statements: str) -> None:
        """Run SQL statements, each committed on its own."""
        with self.connect() as conn, conn.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a query, as tuples."""
        with self.connect() as conn, conn.cursor() as cursor:
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]

    def columns(self, table: str, schema: str = "public") -> list[tuple[str, str]]:
        """``(column, data type)`` of a table, in order, from ``information_schema.columns``."""
        return [(str(n), str(t)) for n, t in self.rows(
            "SELECT column_name, data_type FROM information_schema.columns "
            f"WHERE table_schema = '{schema}' AND table_name = '{table}' ORDER BY ordinal_position")]

    def tables(self) -> list[tuple[str, str]]:
        """Every ``(schema, table)`` outside the system schemas, sorted (temporary tables included)."""
        return sorted((str(s), str(t)) for s, t in self.rows(
            "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
            "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm') "
            "AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"))


def bin_dir() -> Path:
    """The directory of ``initdb`` and ``pg_ctl``; pytest fails saying what to install when there is none."""
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if found:
        def version(path: str) -> tuple[int, ...]:
            return tuple(int(n) for n in re.findall(r"\d+", Path(path).parts[-3]))

        return Path(max(found, key=version)).parent
    on_path = shutil.which("initdb")
    if on_path is not None and shutil.which("pg_ctl", path=str(Path(on_path).parent)):
        return Path(on_path).parent
    pytest.fail(f"no PostgreSQL server binaries (initdb, pg_ctl in /usr/lib/postgresql/*/bin): {_INSTALL}",
                pytrace=False)


def _account() -> tuple[int, int] | None:
    """The (uid, gid) to run the server as when running as root, else ``None`` (run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    pytest.fail("running as root, and neither a postgres nor a nobody account exists to run the server as",
                pytrace=False)


def _temp_parent(account: tuple[int, int] | None) -> str:
    """Where to make the temporary directory: the usual one, unless the server's account cannot reach
    it or its path is too long for the Unix socket inside (about 100 bytes); then ``/tmp``."""
    parent = tempfile.gettempdir()
    reachable = account is None or all(os.stat(p).st_mode & 0o001 for p in [parent, *map(str, Path(parent).parents)])
    return parent if reachable and len(parent) <= 60 else "/tmp"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _command_options(account: tuple[int, int] | None) -> tuple[dict[str, str], dict[str, Any]]:
    """The environment and the :func:`subprocess.run` options of a server command: the caller's
    environment without its ``PG*`` settings and in the C locale; with ``account`` (running as root),
    run as that uid and gid with no supplementary groups and ``HOME=/``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = env["LANG"] = "C"
    kwargs: dict[str, Any] = {}
    if account is not None:
        kwargs = {"user": account[0], "group": account[1], "extra_groups": []}
        env["HOME"] = "/"
    return env, kwargs


def _run(command: list[str], account: tuple[int, int] | None, *, check: bool = True) -> subprocess.CompletedProcess:
    """Run a server command (as ``account`` when given), its output captured, without the caller's PG* settings."""
    env, kwargs = _command_options(account)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd="/", **kwargs)
    if check and result.returncode != 0:
        output = " ".join((result.stdout + result.stderr).split())
        pytest.fail(f"{Path(command[0]).name} failed ({result.returncode}): {output}", pytrace=False)
    return result


def _start(bin_: Path, data: Path, log: Path, sockets: Path, account: tuple[int, int] | None) -> int:
    """Start the server on a free port (retrying when another process took it first); the port."""
    for _attempt in range(5):
        port = _free_port()
        options = f"-c listen_addresses={HOST} -p {port} -k {sockets} -c fsync=off -c full_page_writes=off"
        started = _run([str(bin_ / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o", options,
                        "start"], account, check=False)
        if started.returncode == 0:
            return port
        text = log.read_text(errors="replace") if log.exists() else ""
        if "could not bind" not in text and "already in use" not in text:
            output = " ".join((started.stdout + started.stderr + text).split())[-2000:]
            pytest.fail(f"pg_ctl start failed: {output}", pytrace=False)
    pytest.fail("pg_ctl start failed: no free port after 5 attempts", pytrace=False)


def start_server() -> Iterator[PgServer]:
    """Run a server for as long as the generator is suspended; stop it and remove its files after."""
    bin_ = bin_dir()
    account = _account()
    root = Path(tempfile.mkdtemp(prefix="anonkit-pg-", dir=_temp_parent(account)))
    password = f"pw:@/{secrets.token_hex(8)}"  # a URI must escape ':', '@' and '/'
    data, log, pwfile = root / "data", root / "server.log", root / "pw"
    try:
        pwfile.write_text(password + "\n")
        pwfile.chmod(0o600)
        if account is not None:
            for path in (root, pwfile):
                os.chown(path, *account)
        _run([str(bin_ / "initdb"), "-D", str(data), "-U", USER, f"--pwfile={pwfile}", "--auth=scram-sha-256",
              "--encoding=UTF8", "--locale=C", "--no-sync"], account)
        pwfile.unlink()
        port = _start(bin_, data, log, root, account)
        server = PgServer(HOST, port, USER, password, DATABASE, root)
        server.create_database(DATABASE)
        yield server
    finally:
        if (data / "postmaster.pid").exists():  # started, or half-started
            _run([str(bin_ / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], account, check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for the whole session (see the module's docstring)."""
    yield from start_server()


@pytest.fixture()
def pg_db(pg_server: PgServer, request: pytest.FixtureRequest) -> Iterator[PgDatabase]:
    """A fresh database for one test, dropped after it (named after the test)."""
    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40] + "_" + secrets.token_hex(3)
    yield pg_server.create_database(name)
    pg_server.drop_database(name)
