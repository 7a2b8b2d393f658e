"""The test servers leave nothing in the temporary directory when their block ends well.

`serverkit.Gunicorn` logs a server to a file that a failure names. Every run of the suite
left each server's log in /tmp, a dozen files a run; a block that ends well now takes its
log with it, and one that fails keeps it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import migrated_sqlite

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

from serverkit import Gunicorn, call  # noqa: E402


@pytest.fixture
def url(tmp_path: Path) -> str:

    made = migrated_sqlite(tmp_path / "capsa.db")
    return made


def test_a_server_whose_block_ends_well_leaves_no_log_and_one_that_fails_keeps_it(url):
    with Gunicorn(url) as server:
        assert call(server.port, "GET", "/healthz").status == 200
        log = Path(server.log.name)
        assert log.exists()
    assert not log.exists()
    with pytest.raises(AssertionError), Gunicorn(url) as server:
        kept = Path(server.log.name)
        raise AssertionError("a failing test")
    assert kept.exists()
    kept.unlink()
