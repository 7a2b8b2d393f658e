"""tests/sqlscope.py, the check that every statement on a client's table names the client.

The recorder runs in every test session (tests/conftest.py) and fails it on a statement
of the service that does not filter on client_id; these tests show what it accepts, what
it refuses, and that it catches a real unfiltered query the service runs, on both engines.
"""

from __future__ import annotations

from typing import Any

import pytest
import sqlscope


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT rounds.id FROM rounds WHERE rounds.id = %(id_1)s AND rounds.client_id = %(client_id_1)s",
        "SELECT c.sequence FROM chain_records AS c LEFT OUTER JOIN chain_signatures AS s "
        "ON s.client_id = c.client_id AND s.sequence = c.sequence WHERE c.client_id = %(c)s::VARCHAR",
        "UPDATE deals SET used_at = %(now)s WHERE id = %(deal)s AND client_id = %(client)s AND used_at IS NULL",
        "UPDATE chain_heads h SET sequence = h.sequence + 1 FROM gate WHERE h.client_id = %(client)s AND gate.ok = 1",
        "INSERT INTO rounds (id, client_id, sequence) SELECT %(round)s, %(client)s, head.sequence FROM head",
        "SELECT x FROM chain_signatures WHERE (chain_signatures.client_id, chain_signatures.sequence) IN (?, ?)",
        "DELETE FROM webhook_attempts WHERE webhook_attempts.client_id = ? AND webhook_attempts.webhook_id = ?",
        "SELECT clients.id FROM clients WHERE clients.name = ?",  # a reference table
    ],
)
def test_statements_that_fix_the_client_of_every_client_table_pass(sql):
    assert sqlscope.problems(sql) == ()


@pytest.mark.parametrize(
    ("sql", "reasons"),
    [
        ("SELECT games.client_id, games.id FROM games WHERE games.status = ?", ("games not filtered on client_id",)),
        ("DELETE FROM webhook_attempts WHERE webhook_attempts.webhook_id = ?",
         ("webhook_attempts not filtered on client_id",)),
        ("INSERT INTO webhook_attempts (webhook_id, event_id) VALUES (?, ?)",
         ("INSERT INTO webhook_attempts without client_id in its columns",)),
        # a join on client_id fixes nothing when neither side is fixed
        ("SELECT webhooks.id FROM webhooks JOIN chain_heads ON chain_heads.client_id = webhooks.client_id "
         "WHERE webhooks.enabled IS 1",
         ("webhooks not filtered on client_id", "chain_heads not filtered on client_id")),
        # a range of clients is no filter
        ("SELECT c.sequence FROM chain_records AS c WHERE (c.client_id, c.sequence) > (?, ?)",
         ("chain_records AS c not filtered on client_id",)),
        ("SELECT r.id FROM rounds AS r, ledger_lines AS l WHERE r.client_id = ?",
         ("ledger_lines AS l not filtered on client_id",)),
    ],
)
def test_statements_that_leave_a_client_table_open_are_named_with_the_table(sql, reasons):
    assert sqlscope.problems(sql) == reasons


def test_every_exemption_names_a_function_that_exists_and_says_its_plan_under_citus():
    import importlib

    for (path, qualname), reason in sqlscope.EXEMPT.items():
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        owner: Any = module
        for part in qualname.split("."):
            owner = getattr(owner, part)
        assert callable(owner), (path, qualname)
        assert "Citus" in reason, (path, qualname)


def test_the_recorder_catches_an_unfiltered_query_the_service_runs_unless_it_is_exempt(app, monkeypatch):
    """`capsa receipts sign-pending` walks every client's records (`unsigned` with no
    client): exempt, and caught once its exemption is taken away."""
    db = app.extensions["capsa"].db
    site = ("service/adapters/signatures.py", "SignatureRepository.unsigned")

    def unsigned_of_every_client() -> None:
        with db.unit_of_work() as uow:
            uow.signatures.unsigned(None, ("", 0), 10)

    monkeypatch.setattr(sqlscope, "_ACTIVE", [])  # the session's recorder must not see the offence
    recorder = sqlscope.install()
    try:
        unsigned_of_every_client()
        assert recorder.offences() == []
        assert any(s.startswith(site[0]) for _, s in recorder.exempted)
        monkeypatch.delitem(sqlscope.EXEMPT, site)
        unsigned_of_every_client()
    finally:
        sqlscope.uninstall(recorder)
    offences = recorder.offences()
    assert {(o.site.split(":")[0], o.site.split(" ")[1]) for o in offences} == {site}
    assert {o.reasons for o in offences} == {
        ("chain_records not filtered on client_id", "chain_signatures not filtered on client_id")
    }


def test_an_offence_found_by_a_pytest_xdist_worker_fails_the_run_and_is_reported(tmp_path):
    """`make test` runs the suite on pytest-xdist workers. Each worker's session found its
    offences and set its own exit status, which the controller does not read: the run passed
    and said nothing (an unfiltered DELETE of the dispatcher's went in so). The workers now
    hand them to the controller, whose session fails on them."""
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import importlib.util, sys
        sys.path.insert(0, {str(tests)!r})
        spec = importlib.util.spec_from_file_location("capsa_conftest", {str(tests / "conftest.py")!r})
        suite = sys.modules["capsa_conftest"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(suite)
        pytest_configure = suite.pytest_configure
        pytest_sessionfinish = suite.pytest_sessionfinish
        if hasattr(suite, "pytest_testnodedown"):
            pytest_testnodedown = suite.pytest_testnodedown
        pytest_terminal_summary = suite.pytest_terminal_summary
    """))
    (tmp_path / "test_offends.py").write_text(textwrap.dedent("""
        import sqlscope
        from service.adapters.uow import Database
        from service.adapters.migrate import upgrade

        def test_runs_an_unfiltered_query(tmp_path, monkeypatch):
            url = f"sqlite:///{tmp_path / 'x.db'}"
            upgrade(url)
            db = Database(url)
            monkeypatch.delitem(sqlscope.EXEMPT, ("service/adapters/signatures.py", "SignatureRepository.unsigned"))
            with db.unit_of_work() as uow:
                uow.signatures.unsigned(None, ("", 0), 10)
            db.dispose()

        def test_another(): pass
    """))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "statements not filtered by client_id" in done.stdout, done.stdout
    assert "SignatureRepository.unsigned: chain_records not filtered on client_id" in done.stdout, done.stdout
