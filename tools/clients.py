"""Generate the client libraries in clients/ from openapi.yaml (`make clients`).

    .venv/bin/python tools/clients.py                    # both, in place
    .venv/bin/python tools/clients.py --out DIR          # into DIR instead (the drift test)
    .venv/bin/python tools/clients.py python             # only one: python or typescript

What is generated, and nothing else (the rest of clients/ is written by hand):

- clients/python/capsa_client/: openapi-python-client, the version pinned in pyproject.toml's
  `clients` extra, run by this interpreter (the venv's), with
  clients/python/openapi-python-client.yaml; its ruff hooks run the venv's ruff in isolated
  mode, so the output does not depend on any ruff configuration or cache around it. It is
  generated in a temporary directory and then replaces the committed one, so a module of a
  removed endpoint goes too. py.typed is added (the generator writes it only with metadata).
- clients/typescript/src/schema.ts: openapi-typescript from clients/typescript/node_modules,
  as package-lock.json pins it. `npm ci --ignore-scripts` installs node_modules when they are
  missing or were installed from another package-lock.json (a stamp in node_modules records
  the lock's sha256), so once installed this runs offline.

With --out DIR the same files are written under DIR with the same relative paths
(DIR/clients/python/capsa_client, DIR/clients/typescript/src/schema.ts) and clients/ is left
alone: tests/integration/test_clients.py compares them with the committed ones.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPENAPI = ROOT / "openapi.yaml"
PYTHON_DIR = ROOT / "clients" / "python"
TS_DIR = ROOT / "clients" / "typescript"
# The generated paths, relative to the repository root.
GENERATED = {
    "python": Path("clients/python/capsa_client"),
    "typescript": Path("clients/typescript/src/schema.ts"),
}
NPM_STAMP = ".capsa-npm-ci"


class GenerationError(RuntimeError):
    pass


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise GenerationError(
            f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}".rstrip()
        )


def generate_python(dest: Path) -> None:
    """clients/python/capsa_client from openapi.yaml, written to `dest` (replaced whole)."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "ruff").exists():
        raise GenerationError(f"no ruff beside {sys.executable}: run this with the venv's python")
    # The generator's post hooks find ruff on PATH: this venv's first.
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory(prefix="capsa-client-py-") as tmp:
        out = Path(tmp) / "capsa_client"
        run([sys.executable, "-m", "openapi_python_client", "generate",
             "--path", str(OPENAPI), "--meta", "none",
             "--config", str(PYTHON_DIR / "openapi-python-client.yaml"),
             "--output-path", str(out), "--fail-on-warning"], cwd=Path(tmp), env=env)
        (out / "py.typed").write_text("# PEP 561: this package is typed\n", encoding="utf-8")
        replace(out, dest)


def replace(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    staged = dest.with_name(dest.name + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.copytree(source, staged)
    shutil.rmtree(dest, ignore_errors=True)
    staged.rename(dest)


def lock_digest() -> str:
    return hashlib.sha256((TS_DIR / "package-lock.json").read_bytes()).hexdigest()


def node_modules_current() -> bool:
    stamp = TS_DIR / "node_modules" / NPM_STAMP
    return stamp.is_file() and stamp.read_text().strip() == lock_digest()


def ensure_node_modules() -> Path:
    """clients/typescript/node_modules as package-lock.json pins it (npm ci once per lock)."""
    if not node_modules_current():
        npm = shutil.which("npm")
        if npm is None:
            raise GenerationError("npm is not installed: clients/typescript needs Node.js 20 and npm")
        # No lifecycle scripts: neither the dependencies' nor the package's own `prepare`.
        run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=TS_DIR)
        (TS_DIR / "node_modules" / NPM_STAMP).write_text(lock_digest() + "\n")
    return TS_DIR / "node_modules"


def generate_typescript(dest: Path) -> None:
    """clients/typescript/src/schema.ts from openapi.yaml, written to `dest`."""
    node = shutil.which("node")
    if node is None:
        raise GenerationError("node is not installed: clients/typescript needs Node.js 20")
    cli = ensure_node_modules() / "openapi-typescript" / "bin" / "cli.js"
    with tempfile.TemporaryDirectory(prefix="capsa-client-ts-") as tmp:
        out = Path(tmp) / "schema.ts"
        # cwd: an empty directory, so no redocly.yaml around changes how the document is read.
        run([node, str(cli), str(OPENAPI), "--output", str(out)], cwd=Path(tmp))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, dest)


GENERATORS = {"python": generate_python, "typescript": generate_typescript}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", nargs="*", metavar="python|typescript", help="default: both")
    parser.add_argument("--out", type=Path, help="write under this directory instead of the repository")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.which) - set(GENERATORS))
    if unknown:
        parser.error(f"unknown client {', '.join(unknown)}: choose from {', '.join(GENERATORS)}")
    base = args.out.resolve() if args.out else ROOT
    for name in args.which or list(GENERATORS):
        dest = base / GENERATED[name]
        try:
            GENERATORS[name](dest)
        except GenerationError as exc:
            print(f"clients: {name}: {exc}", file=sys.stderr)
            return 1
        print(f"clients: {name}: wrote {dest if args.out else dest.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
