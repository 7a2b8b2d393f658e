"""The lock files pin what pyproject.toml asks for, with hashes, so `pip install --require-hashes`
(make's install, the Dockerfile) installs exactly them; `make lock` regenerates them."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RUNTIME, DEV, BUILD = "requirements.lock", "requirements-dev.lock", "requirements-build.lock"
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


@dataclass(frozen=True)
class Pin:
    version: Version
    hashes: frozenset[str]


def read_lock(name: str) -> dict[str, Pin]:
    """`name==version \\` lines, each followed by its `--hash=sha256:...` lines."""
    pins: dict[str, Pin] = {}
    current: str | None = None
    version: Version | None = None
    hashes: set[str] = set()
    for line in (ROOT / name).read_text().splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("--hash="):
            hashes.add(stripped.removeprefix("--hash=").rstrip(" \\"))
            continue
        if current is not None and version is not None:
            pins[current] = Pin(version, frozenset(hashes))
            current, version, hashes = None, None, set()
        match = _ENTRY.match(line)
        if match:
            current, version = canonicalize_name(match.group(1)), Version(match.group(2))
        else:
            assert not stripped or stripped.startswith("#"), f"{name}: unexpected line {line!r}"
    return pins


def requirements(group: str | None = None) -> list[Requirement]:
    project = PYPROJECT["project"]
    found = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return [Requirement(r) for r in found]


def assert_pinned(req: Requirement, pins: dict[str, Pin], lock: str) -> None:
    name = canonicalize_name(req.name)
    assert name in pins, f"{req} is not in {lock}: run `make lock`"
    assert pins[name].version in req.specifier, f"{lock} pins {name}=={pins[name].version}, outside {req}"
    for extra in req.extras:  # psycopg[binary], apispec[yaml]: what the extra brings, locked too
        for text in metadata.requires(req.name) or []:
            needed = Requirement(text)
            if needed.marker is not None and needed.marker.evaluate({"extra": extra}):
                needed.marker = None
                assert_pinned(needed, pins, lock)


@pytest.mark.parametrize("lock", [RUNTIME, DEV, BUILD])
def test_every_locked_package_is_an_exact_pin_with_sha256_hashes(lock):
    pins = read_lock(lock)
    assert pins
    for name, pin in pins.items():
        assert pin.hashes, f"{lock}: {name} has no hash (pip --require-hashes refuses it)"
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in pin.hashes), (name, pin.hashes)


def test_every_runtime_requirement_of_pyproject_is_in_requirements_lock_within_its_range():
    pins = read_lock(RUNTIME)
    for req in requirements():
        assert_pinned(req, pins, RUNTIME)


def test_requirements_lock_holds_no_test_or_build_tool():
    pins = read_lock(RUNTIME)
    runtime = {canonicalize_name(r.name) for r in requirements()}
    for group in ("test", "bench", "lock", "clients"):
        for req in requirements(group):
            name = canonicalize_name(req.name)
            assert name in runtime or name not in pins or name == "packaging", f"{name} in {RUNTIME}"
    assert not {"pip", "setuptools", "wheel", "pytest", "uv"} & set(pins)


def test_the_dev_lock_has_the_runtime_pins_and_every_extra():
    runtime, dev = read_lock(RUNTIME), read_lock(DEV)
    for name, pin in runtime.items():
        assert dev.get(name) == pin, f"{DEV} pins {name} otherwise than {RUNTIME}: run `make lock`"
    for req in requirements():
        assert_pinned(req, dev, DEV)
    for group in PYPROJECT["project"]["optional-dependencies"]:
        for req in requirements(group):
            assert_pinned(req, dev, DEV)


def test_the_build_lock_has_the_build_system_and_pip_and_agrees_with_the_dev_lock():
    build, dev = read_lock(BUILD), read_lock(DEV)
    for text in PYPROJECT["build-system"]["requires"]:
        assert_pinned(Requirement(text), build, BUILD)
    assert "pip" in build
    for name in set(build) & set(dev):
        assert build[name] == dev[name], f"{BUILD} and {DEV} disagree on {name}"


def test_gunicorn_is_23_or_newer_in_pyproject_and_the_lock():
    # gunicorn before 23: HTTP request smuggling (CVE-2024-6827).
    (gunicorn,) = [r for r in requirements() if r.name == "gunicorn"]
    assert not any(v in gunicorn.specifier for v in ("22.0.0", "21.2.0"))
    assert read_lock(RUNTIME)["gunicorn"].version >= Version("23")


def test_this_environment_was_installed_from_the_dev_lock():
    # make's install step: CI runs the tests on exactly the pinned versions.
    wrong = {}
    for name, pin in read_lock(DEV).items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed != pin.version:
            wrong[name] = (str(pin.version), str(installed))
    assert not wrong, f"installed versions differ from {DEV} (pinned, installed): {wrong}"
