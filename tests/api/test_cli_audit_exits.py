"""`capsa audit` exit codes, the offline verifier's bounds, and the auditor's incremental check.

Every command exits with a code of one table (service/commands/exitcodes.py) and says why in
one line: never a traceback, whatever file it is given (a directory, /dev/zero, a gigabyte
without a newline, JSON nested a million deep), and with memory bounded by the line cap.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import TAMPERED, make_app, make_tenant
from httpkit import two_player_round
from sqlalchemy import update

from service import cli
from service.adapters import keyfile
from service.adapters.models import ChainRecord
from service.commands.exitcodes import MEANING, ExitCode, markdown_table, table
from service.domain import export_check
from service.domain.signing import Keyring, b64, head_message
from service.services.clock import utcnow_ms

ROOT = Path(__file__).resolve().parents[2]
NOWHERE = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # a database that cannot be reached


@pytest.fixture(scope="module")
def signed(db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A service with a signing key on each engine, a client with two rounds, and the
    public keys document an auditor pins."""
    folder = tmp_path_factory.mktemp("audit-cli")
    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(folder / "keys.json", ring)
    app = make_app(db_url, SIGNING_KEY_FILE=str(folder / "keys.json"))
    op = make_tenant(app)
    http = app.test_client()
    for _ in range(2):
        assert http.post("/v1/rounds", json=two_player_round(), headers=op.headers).status_code == 201
    (folder / "public.json").write_bytes(http.get("/v1/audit/keys", headers=op.read_headers).data)
    yield {"app": app, "http": http, "op": op, "ring": ring, "folder": folder, "url": db_url}
    app.extensions["capsa"].db.dispose()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`capsa ARGV` in this process: the exit code (argparse's SystemExit too), stdout, stderr."""
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def capsa(*argv: str, **run: Any) -> subprocess.CompletedProcess[str]:
    """`capsa ARGV` in a process of its own, with no database to reach."""
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": NOWHERE}
    return subprocess.run([sys.executable, "-m", "service.cli", *argv],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, **run)


def offline(*args: str) -> subprocess.CompletedProcess[str]:
    """`capsa audit verify-file ARGS` in a process of its own, with no database to reach."""
    return capsa("audit", "verify-file", *args)


def offline_rss(*args: str) -> tuple[int, str, str, int]:
    """As `offline`, with the peak resident memory of that process alone (KiB, wait4)."""
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": NOWHERE}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "audit", "verify-file", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    _, status, usage = os.wait4(proc.pid, 0)  # its answer is a few lines: the pipes cannot fill
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    proc.stdout.close(), proc.stderr.close()  # type: ignore[union-attr]
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out, err, usage.ru_maxrss


def _export(signed: Any, capsys: Any, name: str, *more: str) -> tuple[int, str, str]:
    folder = signed["folder"]
    return run(["audit", "export", "--client", signed["op"].name, str(folder / f"{name}.ndjson"),
                "--head", str(folder / f"{name}.head.json"), "--database-url", signed["url"], *more], capsys)


def _head(signed: Any, sequence: int, hash_: str) -> bytes:
    signed_at = "2026-12-01T12:00:00.000Z"
    kid, sig = signed["ring"].sign(head_message(signed["op"].id, sequence, hash_, signed_at))
    return orjson.dumps({"client_id": signed["op"].id, "sequence": sequence, "hash": hash_, "created_at": None,
                         "signed_at": signed_at, "kid": kid, "signature": b64(sig)})


# -- the table ------------------------------------------------------------------------------------


def test_the_exit_codes_are_one_table_in_capsa_help_every_audit_commands_help_and_the_readme(capsys):
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 4, 5] and list(MEANING) == list(ExitCode)
    for argv in ([], ["audit"], ["audit", "verify"], ["audit", "export"], ["audit", "verify-file"],
                 ["audit", "verify-restore"]):
        code, out, _ = run([*argv, "--help"], capsys)
        assert code == 0 and table() in out, argv
    assert markdown_table() in (ROOT / "README.md").read_text()
    assert "README.md#exit-codes" in (ROOT / "docs" / "audit.md").read_text()


# -- verify and export, on both engines -----------------------------------------------------------


def test_verify_exits_0_when_the_chain_holds_and_1_at_its_first_bad_sequence(signed, capsys):
    code, out, _ = run(["audit", "verify", "--client", signed["op"].name, "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.OK, f"ok: 2 records of {signed['op'].name} verified\n")
    tampered = make_tenant(signed["app"])
    assert signed["http"].post("/v1/rounds", json=two_player_round(), headers=tampered.headers).status_code == 201
    with signed["app"].extensions["capsa"].db.engine.begin() as conn:
        conn.execute(update(ChainRecord).where(ChainRecord.client_id == tampered.id, ChainRecord.sequence == 1)
                     .values(hash="f" * 64))
    code, out, _ = run(["audit", "verify", "--client", tampered.name, "--database-url", signed["url"]], capsys)
    assert code == ExitCode.FAILED and out.startswith("BAD: first bad sequence 1: ")


@pytest.mark.parametrize("command", ["verify", "export"])
def test_an_unknown_client_exits_4(signed, capsys, tmp_path, command):
    where = [str(tmp_path / "x.ndjson")] if command == "export" else []
    code, out, err = run(["audit", command, "--client", "nobody-here", *where, "--database-url", signed["url"]],
                         capsys)
    assert (code, out, err) == (ExitCode.UNKNOWN_CLIENT, "", "capsa audit: no client 'nobody-here'\n")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["verify", "export"])
def test_a_database_that_cannot_be_reached_exits_3_in_one_line(capsys, tmp_path, command):
    where = [str(tmp_path / "x.ndjson")] if command == "export" else []
    code, out, err = run(["audit", command, "--client", "a", *where, "--database-url", NOWHERE], capsys)
    assert code == ExitCode.UNREADABLE and out == ""
    assert err.startswith("capsa audit: cannot use the database postgresql+psycopg://nobody@127.0.0.1:1/none (")
    assert err.count("\n") == 1


def test_an_export_into_a_folder_that_does_not_exist_exits_3_and_leaves_nothing(signed, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SIGNING_KEY_FILE", str(signed["folder"] / "keys.json"))
    target = tmp_path / "missing" / "x.ndjson"
    code, out, err = run(["audit", "export", "--client", signed["op"].name, str(target),
                          "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == f"capsa audit: cannot write {target}.part: No such file or directory\n"
    assert not (tmp_path / "missing").exists()


def test_an_export_whose_head_matches_no_record_exits_1_and_writes_nothing(db_url, capsys, monkeypatch, tmp_path):
    """The export signs its head as the cut: a head row set by hand (a hash no record has)
    was signed into the head file and the records exported up to it."""
    from service.adapters.models import ChainHead

    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(tmp_path / "keys.json", ring)
    monkeypatch.setenv("SIGNING_KEY_FILE", str(tmp_path / "keys.json"))
    app = make_app(db_url, SIGNING_KEY_FILE=str(tmp_path / "keys.json"))
    op = make_tenant(app)
    TAMPERED.add(op.id)
    assert app.test_client().post("/v1/rounds", json=two_player_round(), headers=op.headers).status_code == 201
    with app.extensions["capsa"].db.engine.begin() as conn:
        conn.execute(update(ChainHead).where(ChainHead.client_id == op.id).values(hash="f" * 64))
    app.extensions["capsa"].db.dispose()
    code, out, err = run(["audit", "export", "--client", op.name, str(tmp_path / "x.ndjson"),
                          "--head", str(tmp_path / "x.head.json"), "--database-url", db_url], capsys)
    assert code == ExitCode.FAILED and err == ""
    assert out.startswith("BAD: the chain head (sequence 1) does not match the record stored there")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.json"]


def test_a_head_that_cannot_be_written_leaves_no_export_and_the_head_is_never_standard_output(
    signed, capsys, monkeypatch, tmp_path
):
    """The export was written in full, then the head failed (exit 3): an export with no head
    to anchor it, beside an error. And `--head -` wrote a file named `-`."""
    monkeypatch.setenv("SIGNING_KEY_FILE", str(signed["folder"] / "keys.json"))
    target, head = tmp_path / "x.ndjson", tmp_path / "missing" / "x.head.json"
    code, out, err = run(["audit", "export", "--client", signed["op"].name, str(target), "--head", str(head),
                          "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == f"capsa audit: cannot write {head}.part: No such file or directory\n"
    assert not list(tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["audit", "export", "--client", signed["op"].name, str(target), "--head", "-",
                          "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.USAGE, "") and "--head needs a file name" in err
    assert not list(tmp_path.iterdir())


def test_a_head_named_as_the_export_itself_is_a_wrong_command_line(signed, capsys, monkeypatch, tmp_path):
    """Both were written through `NAME.part`: the head's write then failed and said so,
    while the export had been written under the name the head was to take."""
    monkeypatch.setenv("SIGNING_KEY_FILE", str(signed["folder"] / "keys.json"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["audit", "export", "--client", signed["op"].name, "same.out", "--head", "./same.out",
                          "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == "capsa audit: --head and FILE both name same.out: the signed head needs a file of its own\n"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv", [
    ["audit", "verify-file", "-", "--public-keys", "KEYS"],
    ["audit", "verify-file", "EXPORT", "--public-keys", "-"],
    ["audit", "verify-file", "EXPORT", "--public-keys", "KEYS", "--head", "-"],
    ["score", "-"],
    ["arrange", "-"],
])
def test_a_closed_standard_input_is_an_input_that_cannot_be_read(tmp_path, keys_file, argv):
    """Started with standard input closed (`<&-`), Python has no `sys.stdin` at all."""
    export = _write(tmp_path / "x.ndjson", b"")
    argv = [str(export) if a == "EXPORT" else str(keys_file) if a == "KEYS" else a for a in argv]
    done = capsa(*argv, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert done.returncode == ExitCode.UNREADABLE, done
    assert "Traceback" not in done.stderr and "standard input is closed" in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_an_export_whose_signing_key_file_is_missing_exits_3_in_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SIGNING_KEY_FILE", str(tmp_path / "nokeys.json"))
    code, out, err = run(["audit", "export", "--client", "a", str(tmp_path / "x.ndjson"), "--database-url", NOWHERE],
                         capsys)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == (f"capsa audit: SIGNING_KEY_FILE '{tmp_path / 'nokeys.json'}' does not exist; "
                   "create it with `capsa keys create`\n")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "verify", "--client", "a", "--limit", "0"],
        ["audit", "verify", "--client", "a", "--from-sequence", "-3"],
        ["audit", "export", "--client", "a", "x.ndjson", "--from-sequence", "zero"],
        ["audit", "export", "--client", "a", "x.ndjson", "--from-sequence", "\u0663"],  # an Arabic-Indic 3
        ["audit", "verify", "--client", "a", "--limit", "\uff15"],  # a fullwidth 5
        ["audit", "verify-file", "x.ndjson", "--public-keys", "k.json", "--partial", "--from-sequence", "2"],
        ["audit", "verify-file", "x.ndjson"],
        ["audit", "bogus"],
    ],
)
def test_a_wrong_command_line_exits_2_before_anything_is_read(capsys, argv):
    code, out, err = run(argv, capsys)
    assert (code, out) == (ExitCode.USAGE, "") and "error: " in err


def test_an_export_into_a_pipe_or_through_a_link_writes_there_and_leaves_it_what_it_was(signed, capsys, tmp_path):
    """The export wrote FILE.part and renamed it over FILE: a named pipe became a regular
    file (its reader got nothing), /dev/full a 29 KB file, and a link a file of its own
    beside its target. A pipe or device is now written as it is, a link through to its
    target; and the count said is what was written."""
    import threading

    op, url = signed["op"], signed["url"]
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, out, _ = run(["audit", "export", "--client", op.name, str(fifo), "--database-url", url], capsys)
    reader.join(10)
    assert code == 0 and fifo.is_fifo() and not (tmp_path / "feed.part").exists()
    lines = got[0].count(b"\n")
    assert lines >= 2 and out.startswith(f"exported {lines} records of {op.name} to {fifo} (head at ")
    target = tmp_path / "kept" / "chain.ndjson"
    target.parent.mkdir()
    target.write_text("")
    link = tmp_path / "chain.ndjson"
    link.symlink_to(target)
    code, _, _ = run(["audit", "export", "--client", op.name, str(link), "--database-url", url], capsys)
    assert code == 0 and link.is_symlink() and target.read_bytes().count(b"\n") == lines


# -- the auditor's incremental check --------------------------------------------------------------


def test_an_incremental_export_is_anchored_by_the_head_of_the_export_before(signed, capsys, monkeypatch):
    """Day 1: export the chain with its head and check it. Day 2: export from the next record
    with the new head; the check continues from day 1's head, or says it is partial."""
    monkeypatch.setenv("SIGNING_KEY_FILE", str(signed["folder"] / "keys.json"))
    folder, op = signed["folder"], signed["op"]
    keys = ["--public-keys", str(folder / "public.json")]
    code, out, _ = _export(signed, capsys, "day1")
    assert (code, out) == (0, f"exported 2 records of {op.name} to {folder / 'day1.ndjson'} (head at 2)\n")
    day1 = offline(str(folder / "day1.ndjson"), *keys, "--head", str(folder / "day1.head.json"))
    assert day1.returncode == ExitCode.OK and day1.stdout.startswith(f"ok: 2 records of {op.id} verified (sequences 1-2")

    for _ in range(2):
        assert signed["http"].post("/v1/rounds", json=two_player_round(), headers=op.headers).status_code == 201
    code, out, _ = _export(signed, capsys, "day2", "--from-sequence", "3")
    assert (code, out) == (0, f"exported 2 records of {op.name} to {folder / 'day2.ndjson'} (head at 4)\n")
    day2, head1, head2 = (str(folder / n) for n in ("day2.ndjson", "day1.head.json", "day2.head.json"))

    anchored = offline(day2, *keys, "--from-sequence", "3", "--head", head1, "--head", head2)
    assert anchored.returncode == ExitCode.OK, anchored
    assert anchored.stdout.startswith(f"ok: 2 records of {op.id} verified (sequences 3-4, head hash ")
    assert anchored.stdout.endswith("; 2 rounds re-scored; 2 signed heads reached\n")

    unanchored = offline(day2, *keys, "--head", head2)
    assert unanchored.returncode == ExitCode.FAILED and unanchored.stderr == ""
    assert unanchored.stdout.splitlines() == [
        "BAD: first bad sequence 1: the export starts at sequence 3: records 1-2 are not in it, and nothing "
        "anchors its first record (the signed head at sequence 2, or a partial check) (0 records verified before it)",
        "to check an export that starts at sequence 3: --from-sequence 3 --head HEAD.json (the signed head at "
        "sequence 2, kept from the export before), or --partial",
    ]

    partial = offline(day2, *keys, "--partial", "--head", head2)
    assert partial.returncode == ExitCode.PARTIAL, partial
    assert partial.stdout.splitlines()[0] == ("note: partial: the export starts at sequence 3; records 1-2 were "
                                              "not checked, and its first previous hash is trusted")
    assert partial.stdout.splitlines()[1].startswith(f"partial: 2 records of {op.id} verified (sequences 3-4, ")
    assert partial.stdout.endswith("; 1 signed heads reached; records 1-2 were not checked\n")

    no_anchor = offline(day2, *keys, "--from-sequence", "3", "--head", head2)
    assert (no_anchor.returncode, no_anchor.stdout) == (ExitCode.USAGE, "")
    assert no_anchor.stderr == ("capsa audit: --from-sequence 3: an export from sequence 3 is anchored by the "
                                "signed head at sequence 2, and no head given is at 2; give it with --head HEAD.json\n")

    wrong = offline(str(folder / "day1.ndjson"), *keys, "--from-sequence", "3", "--head", head1)
    assert wrong.returncode == ExitCode.FAILED
    assert wrong.stdout == ("BAD: first bad sequence 3: the export starts at sequence 1, not at 3 as given "
                            "(0 records verified before it)\n")

    # A head at 2 of another history (signed, so it passes as a head): day 2 does not continue it.
    (folder / "other.head.json").write_bytes(_head(signed, 2, "ab" * 32))
    forked = offline(day2, *keys, "--from-sequence", "3", "--head", str(folder / "other.head.json"))
    assert forked.returncode == ExitCode.FAILED
    assert forked.stdout.startswith(
        f"BAD: first bad sequence 3: previous_hash is not the hash of signed head #1 ({folder / 'other.head.json'}) "
        "(sequence 2), which the export continues from")


# -- export --head without a signing key; - for standard input and output -----------------------


def test_export_head_without_a_signing_key_refuses_with_2_says_how_to_sign_and_writes_nothing(
        signed, capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("SIGNING_KEY_FILE", raising=False)
    code, out, err = run(["audit", "export", "--client", signed["op"].name, str(tmp_path / "x.ndjson"),
                          "--head", str(tmp_path / "x.head.json"), "--database-url", signed["url"]], capsys)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == (
        "capsa audit: --head needs a signing key to sign the head, and SIGNING_KEY_FILE is not set (or its "
        "keyring has no active key): run it with SIGNING_KEY_FILE=PATH, the keyring the service signs with "
        "(`capsa keys create --file PATH` makes one), or leave out --head\n")
    assert not list(tmp_path.iterdir())
    # Without --head there is nothing to sign: the export is written, as before.
    code, out, _ = run(["audit", "export", "--client", signed["op"].name, str(tmp_path / "x.ndjson"),
                        "--database-url", signed["url"]], capsys)
    assert code == ExitCode.OK and out.startswith("exported ") and (tmp_path / "x.ndjson").exists()


def test_export_to_dash_writes_the_records_on_stdout_and_verify_file_reads_them_from_stdin(
        signed, capsys, monkeypatch):
    monkeypatch.setenv("SIGNING_KEY_FILE", str(signed["folder"] / "keys.json"))
    folder, op = signed["folder"], signed["op"]
    into_file = _export(signed, capsys, "to-file")
    assert into_file[0] == ExitCode.OK
    code, out, err = run(["audit", "export", "--client", op.name, "-", "--database-url", signed["url"]], capsys)
    assert code == ExitCode.OK
    assert out.encode() == (folder / "to-file.ndjson").read_bytes()  # the same lines, and only them
    assert err.startswith(f"exported {out.count(chr(10))} records of {op.name} to standard output (head at ")

    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": NOWHERE}
    piped = subprocess.run(
        [sys.executable, "-m", "service.cli", "audit", "verify-file", "-", "--public-keys", str(folder / "public.json"),
         "--head", str(folder / "to-file.head.json")],
        input=out, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert piped.returncode == ExitCode.OK, piped
    assert piped.stdout.startswith(f"ok: {out.count(chr(10))} records of {op.id} verified (sequences 1-")
    keys_piped = subprocess.run(
        [sys.executable, "-m", "service.cli", "audit", "verify-file", str(folder / "to-file.ndjson"),
         "--public-keys", "-"],
        input=(folder / "public.json").read_text(), capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert keys_piped.returncode == ExitCode.OK, keys_piped


def test_standard_input_given_twice_is_a_wrong_command_line(capsys):
    code, out, err = run(["audit", "verify-file", "-", "--public-keys", "-"], capsys)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == ("capsa audit: standard input (-) can be read once: give it to one of the export, "
                   "--public-keys and --head\n")


# -- verify-file on what is not an export ---------------------------------------------------------


@pytest.fixture(scope="module")
def keys_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "public.json"
    ring, _ = Keyring().rotated(utcnow_ms())
    path.write_text(json.dumps(ring.public_json()))
    return path


def _deep(n: int) -> bytes:
    return b'{"keys": ' + b"[" * n + b"]" * n + b"}"


@pytest.mark.parametrize(
    ("make", "code", "stream", "expected"),
    [
        (lambda d: d, ExitCode.UNREADABLE, "stderr", "capsa audit: cannot read {path}: Is a directory\n"),
        (lambda d: d / "missing.ndjson", ExitCode.UNREADABLE, "stderr",
         "capsa audit: cannot read {path}: No such file or directory\n"),
        (lambda d: _write(d / "empty.ndjson", b""), ExitCode.FAILED, "stdout",
         "BAD: the export is empty: it holds no record, so it shows nothing (0 records verified before it)\n"),
        (lambda d: _write(d / "blank.ndjson", b"\n"), ExitCode.FAILED, "stdout", None),
        (lambda d: _write(d / "long.ndjson", b'{"sequence":7,' + b" " * export_check.MAX_LINE + b"}\n"),
         ExitCode.FAILED, "stdout",
         "BAD: first bad sequence 7: the line is longer than 1,048,576 bytes, the verifier's cap: not an export line"
         " (0 records verified before it)\n"),
        (lambda d: _write(d / "deep.ndjson", b'{"record":' + b"[" * 400_000 + b"]" * 400_000 + b"}\n"),
         ExitCode.FAILED, "stdout",
         "BAD: first bad sequence 1: the line is not an export record: JSON nested too deep"
         " (0 records verified before it)\n"),
    ],
    ids=["directory", "missing", "empty", "blank-line", "line-over-the-cap", "nested-deep-line"],
)
def test_verify_file_on_what_is_not_an_export_says_so_in_one_line(tmp_path, keys_file, make, code, stream, expected):
    path = make(tmp_path)
    done = offline(str(path), "--public-keys", str(keys_file))
    assert done.returncode == code and "Traceback" not in done.stderr, done
    said, other = (done.stderr, done.stdout) if stream == "stderr" else (done.stdout, done.stderr)
    assert other == ""
    if expected is None:
        assert said.startswith("BAD: first bad sequence 1: the line is not an export record: ") and said.count("\n") == 1
    else:
        assert said == expected.format(path=path)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("option", "content", "why"),
    [
        ("--public-keys", None, "cannot read it: No such file or directory"),
        ("--public-keys", "dir", "cannot read it: Is a directory"),
        ("--public-keys", _deep(1_000_000), "larger than 1,048,576 bytes, the cap for this document"),
        ("--public-keys", _deep(400_000), "not a JSON document the verifier reads: JSON nested deeper than 32 levels"),
        ("--public-keys", b'{"keys": 1}', 'a key document is an object with a "keys" list'),
        ("--public-keys", b'{"keys": [], "keys": []}', "not a JSON document the verifier reads: duplicate key 'keys'"),
        ("--public-keys", b" " * (export_check.MAX_DOCUMENT + 1), "larger than 1,048,576 bytes, the cap for this document"),
        ("--head", None, "cannot read it: No such file or directory"),
        ("--head", _deep(1_000_000), "larger than 1,048,576 bytes, the cap for this document"),
        ("--head", _deep(400_000), "not a JSON document the verifier reads: JSON nested deeper than 32 levels"),
        ("--head", b"{", "not a JSON document the verifier reads: not JSON: Expecting property name enclosed in "
         "double quotes at line 1 column 2"),
    ],
    ids=["keys-missing", "keys-directory", "keys-nested-a-million-deep", "keys-nested-400000-deep",
         "keys-not-a-key-document", "keys-duplicate-key", "keys-over-the-cap", "head-missing",
         "head-nested-a-million-deep", "head-nested-400000-deep", "head-not-json"],
)
def test_unreadable_keys_or_heads_exit_3_naming_the_file(tmp_path, keys_file, option, content, why):
    path = tmp_path / "doc.json"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    export = _write(tmp_path / "x.ndjson", b"")
    keys = str(path) if option == "--public-keys" else str(keys_file)
    heads = ["--head", str(path)] if option == "--head" else []
    done = offline(str(export), "--public-keys", keys, *heads)
    assert (done.returncode, done.stdout) == (ExitCode.UNREADABLE, ""), done
    assert done.stderr == f"capsa audit: {option} {path}: {why}\n"


def test_a_head_that_is_json_but_not_a_signed_head_is_a_failed_check(tmp_path, keys_file):
    head = _write(tmp_path / "head.json", b'{"client_id": "c", "sequence": 1}')
    done = offline(str(_write(tmp_path / "x.ndjson", b"")), "--public-keys", str(keys_file), "--head", str(head))
    assert (done.returncode, done.stderr) == (ExitCode.FAILED, "")
    assert done.stdout.startswith(f"BAD: head #1 ({head}) is not a signed head: Object missing required field")


# -- memory stays bounded -------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_and_a_gigabyte_without_a_newline_are_refused_at_the_cap_in_bounded_memory(tmp_path, keys_file):
    keys = ["--public-keys", str(keys_file)]
    # The reference: the same process on a one-line file (everything imported, one line read).
    small = _write(tmp_path / "small.ndjson", b'{"sequence":1}\n')
    code, out, err, reference = offline_rss(str(small), *keys)
    assert code == ExitCode.FAILED and "Traceback" not in err
    sparse = tmp_path / "gigabyte.ndjson"
    with sparse.open("wb") as f:
        f.truncate(1 << 30)  # 1 GiB of zero bytes, no newline (sparse: no disk used)
    for path in ("/dev/zero", str(sparse)):
        code, out, err, peak = offline_rss(path, *keys)
        assert (code, err) == (ExitCode.FAILED, ""), (path, err)
        assert out == ("BAD: first bad sequence 1: the line is longer than 1,048,576 bytes, the verifier's cap: "
                       "not an export line (0 records verified before it)\n")
        # The line cap is 1 MiB: a few of it (the read, its copy, the search) over the reference.
        assert peak - reference < 16 * 1024, (path, peak, reference)


@pytest.mark.parametrize("bind", ["taken", "9101", "127.0.0.1:x"])
def test_a_dispatcher_whose_metrics_bind_is_taken_or_wrong_says_so_in_one_line(bind, monkeypatch, capsys):
    """A second dispatcher on a host (the same default WEBHOOK_METRICS_BIND) ended in a
    traceback and exit 1, which README's table does not list for it."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        value = f"127.0.0.1:{busy.getsockname()[1]}" if bind == "taken" else bind
        monkeypatch.setenv("WEBHOOK_METRICS_BIND", value)
        code, _, err = run(["webhooks", "dispatch", "--database-url", NOWHERE], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("capsa: WEBHOOK_METRICS_BIND") and repr(value) in err, err
