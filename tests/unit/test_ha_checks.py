"""tools/ha/formation.py refuses to start a formation it cannot finish, before starting
anything: a missing package or a taken port is named (no pg_auto_failover needed here)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "ha"))

import formation as ha  # noqa: E402


@pytest.fixture
def as_root(monkeypatch):
    monkeypatch.setattr(ha.os, "geteuid", lambda: 0)
    monkeypatch.setattr(ha.Formation, "check_access", lambda self: None)


def test_a_missing_binary_is_named_with_its_package_and_nothing_is_made(tmp_path, monkeypatch, capsys, as_root):
    monkeypatch.setattr(ha, "BINARIES", {"sh": ("/bin/sh", "dash"),
                                         "pgbouncer": (str(tmp_path / "no" / "pgbouncer"), "pgbouncer")})
    directory = tmp_path / "formation"
    assert ha.main(["up", "--dir", str(directory), "--port-base", "17900"]) == 1
    err = capsys.readouterr().err
    assert err == (f"formation: missing: pgbouncer ({tmp_path}/no/pgbouncer; Debian package pgbouncer) "
                   "(`make ha-deps` installs the packages)\n")
    assert not directory.exists()


def test_a_taken_port_is_named_with_its_host_and_nothing_is_started(tmp_path, monkeypatch, capsys, as_root):
    monkeypatch.setattr(ha, "BINARIES", {"sh": ("/bin/sh", "dash")})
    started = []
    monkeypatch.setattr(ha.Formation, "_launch", lambda self, name, *a, **k: started.append(name))
    base = 17900
    monitor = ha.hosts(base)["monitor"]
    with socket.socket() as holder:
        holder.bind((monitor.address, monitor.ports["postgresql"]))
        holder.listen()
        assert ha.main(["up", "--dir", str(tmp_path), "--port-base", str(base)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"formation: port taken: {monitor.address}:{base} (monitor postgresql: ")
    assert err.endswith("(choose another HA_PORT_BASE)\n")
    assert started == []
