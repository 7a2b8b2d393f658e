"""The benchmarks and the operator tools call the service as it is today: a rename in the
service that they still spell the old way is found by the suite, not by the next person to
run a benchmark. They are type-checked (not strictly: they are scripts), with the service's
own types."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytest.importorskip("mypy")


def test_benchmarks_and_tools_type_check(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "cache"), "bench", "tools"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
