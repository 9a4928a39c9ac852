"""The PostgreSQL fixture itself (``tests/pg_server.py``): both of its ways to run the server.

Run as root (CI containers), the fixture runs ``initdb``, ``pg_ctl`` and the server as an unprivileged
account; run as any other user, as that user. The session's server takes one way; the other is
tested here: as root, a child process drops to ``nobody`` and starts, uses and stops a server the
non-root way, for real; as another user, the commands for root are checked as they are built (only
root can switch users).
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pg_server

TESTS = Path(__file__).resolve().parent

#: starts a server the non-root way (as ``nobody`` when started as root), queries it, stops it, and
#: prints what it saw as JSON. Everything is imported before dropping root: the interpreter's own
#: files may be out of the unprivileged account's reach.
CHILD = textwrap.dedent("""
    import importlib.resources, json, os, sys
    sys.path.insert(0, sys.argv[1])
    import pg_server
    import adbc_driver_postgresql, adbc_driver_manager.dbapi, pyarrow
    from adbc_driver_postgresql import dbapi
    adbc_driver_postgresql._driver_path()
    if os.geteuid() == 0:
        uid, gid = int(sys.argv[2]), int(sys.argv[3])
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    account = pg_server._account()
    servers = pg_server.start_server()
    server = next(servers)
    try:
        rows = server.db().rows("SELECT current_user, current_database(), count(*) FROM pg_database")
        data = server.directory / "data"
        seen = {"account": account, "euid": os.geteuid(), "rows": [list(r) for r in rows],
                "owner": os.stat(data).st_uid, "directory": str(server.directory)}
    finally:
        servers.close()  # stops the server and removes its directory
    seen["removed"] = not server.directory.exists()
    print("SEEN " + json.dumps(seen))
""")


@pytest.mark.postgres
def test_the_non_root_way_runs_a_server_for_real() -> None:
    nobody = pwd.getpwnam("nobody")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    result = subprocess.run([sys.executable, "-c", CHILD, str(TESTS), str(nobody.pw_uid), str(nobody.pw_gid)],
                            capture_output=True, text=True, timeout=300, cwd="/", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(next(line for line in result.stdout.splitlines() if line.startswith("SEEN "))[5:])
    expected_uid = nobody.pw_uid if os.geteuid() == 0 else os.geteuid()
    assert seen["euid"] == expected_uid != 0
    assert seen["account"] is None  # not root: the fixture runs the server as the caller
    assert seen["owner"] == expected_uid  # the cluster belongs to the caller, nothing was handed over
    assert seen["rows"] == [[pg_server.USER, pg_server.DATABASE, 4]]  # template0/1, postgres, anonkit_test
    assert seen["removed"] and not Path(seen["directory"]).exists()


def test_the_root_way_runs_the_server_as_an_unprivileged_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    account = pg_server._account()
    assert account is not None and account[0] != 0
    names = {pwd.getpwuid(account[0]).pw_name}
    assert names <= {"postgres", "nobody"}
    monkeypatch.setenv("PGPASSWORD", "not for the server")
    env, kwargs = pg_server._command_options(account)
    assert kwargs == {"user": account[0], "group": account[1], "extra_groups": []}
    assert env["HOME"] == "/" and env["LC_ALL"] == env["LANG"] == "C"
    assert not [k for k in env if k.startswith("PG")]
    # the temporary directory must be reachable by the account: /tmp when the usual one is not
    parent = pg_server._temp_parent(account)
    assert all(os.stat(p).st_mode & 0o001 for p in [parent, *map(str, Path(parent).parents)])
    assert len(parent) <= 60


def test_the_non_root_way_runs_as_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert pg_server._account() is None
    monkeypatch.setenv("PGHOST", "elsewhere")
    env, kwargs = pg_server._command_options(None)
    assert kwargs == {} and "PGHOST" not in env and env["LC_ALL"] == "C"
    assert env.get("HOME") == os.environ.get("HOME")
