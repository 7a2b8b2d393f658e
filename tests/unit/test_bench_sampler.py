"""bench/profile_rounds.py --sample: the stack sampled on SIGPROF, CPU a round by function."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load_script


def _profile_rounds() -> Any:
    return load_script("bench/profile_rounds.py", "profile_rounds")


def _busy() -> int:
    return sum(i * i for i in range(20_000))


def test_the_sampler_finds_where_the_cpu_goes(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _profile_rounds()

    def post() -> None:
        _busy()

    bench.sampled(post, 200, 5)
    err = capsys.readouterr().err
    taken = int(err.split("sampled: ", 1)[1].split(" samples", 1)[0])
    assert taken > 0, err
    inclusive = err.split("inclusive (with what they call):\n", 1)[1].split("top 5", 1)[0]
    # every sample was taken inside post(), which spends it in _busy's generator
    assert "test_bench_sampler.py" in inclusive and "(_busy)" in inclusive
    own = err.split("on their own:\n", 1)[1].splitlines()
    assert "test_bench_sampler.py" in own[0] and ("(<genexpr>)" in own[0] or "(_busy)" in own[0]), own
