"""Every block fenced `sh` in README.md and docs/*.md runs, as written, against a live server.

As a reader runs them: README.md first, then each guide in the order of README's
Documentation table, all on ONE server and ONE database, in one bash (`set -euo pipefail`),
after what `make run` leaves: a project directory whose SQLite database `var/capsa.db` is
migrated and holds the `demo` client, its key in `var/demo.key`, a signing key in
`var/signing-keys.json`, and gunicorn with gunicorn.conf.py on a free port. A later block
(and a later guide) may use what an earlier one set or stored, so every example that stores
a round gives it a reference of its own. The shell has no `DATABASE_URL` (a reader's has
none after `make run`: `capsa` defaults to `sqlite:///var/capsa.db`); the addresses
127.0.0.1:8000 (API) and 127.0.0.1:9100 (metrics) are rewritten to the server's free ports,
and `capsa` is the project's. A block fenced `sh norun` is skipped and must say why in its
first line, a comment, as must a block fenced `sh ha` (it needs the high-availability
formation and runs in tests/reliability/test_ha_backup.py). A block fenced `sh postgres`
is an operator's PostgreSQL drill beside the reader's server: it runs in its place only
when TEST_DATABASE_URL is set, with `LIVE` (a fresh migrated database holding a `demo`
client and two of its rounds, signed with the server's key) and `RESTORED` (a fresh, empty
database) as libpq URLs on that server, both dropped afterwards; without TEST_DATABASE_URL
those blocks are left out and the rest runs alone. A failure names the document and the
line of its block. The repository's own references are checked too: no document outside
docs/ is cited, and every `docs/<file>.md#anchor` in the repository names a heading of that
file.

What a document shows a command printing is checked too: `#` lines directly after a command
in an `sh` block, and `text` blocks that start with `$ COMMAND` (run in their place among the
`sh` blocks), against what it printed; tests/integration/shown_output.py gives the syntax
(`...` for "more" or "any text"; an HTTP status only where the command prints it).
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import pg_admin_url

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

from serverkit import Gunicorn, free_port  # noqa: E402
from shown_output import mismatch  # noqa: E402

FENCE = re.compile(r"^```(\S*)(.*)$")
# Guides written by other parts of the project; linked before they exist.
PENDING = {"docs/audit.md", "docs/webhooks.md"}


@dataclass
class Block:
    path: Path
    line: int
    info: str
    text: str

    @property
    def runs(self) -> bool:
        # `sh ha` blocks need the high-availability formation: tests/reliability/test_ha_backup.py
        return self.info.split()[:1] == ["sh"] and not {"norun", "ha"} & set(self.info.split())

    @property
    def needs_postgres(self) -> bool:
        return self.runs and "postgres" in self.info.split()

    @property
    def shows_a_command(self) -> bool:
        """A `text` block of a command and its output: `$ COMMAND`, then what it prints."""
        return self.info.split()[:1] == ["text"] and self.text.startswith("$ ")


@dataclass
class Shown:
    """Output a document shows: `text` as written (comment marks removed), `whole` for a
    `text` block (all of the output), else the last lines of the command's."""

    path: Path
    line: int
    text: str
    whole: bool


def segments(block: Block) -> list[tuple[str, Shown | None]]:
    """The block's code cut after each command whose output it shows: (code, shown or None)."""
    if block.shows_a_command:
        command, _, output = block.text[2:].partition("\n")
        return [(command, Shown(block.path, block.line + 1, output, whole=True))]
    lines = block.text.splitlines()
    out: list[tuple[str, Shown | None]] = []
    code: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        after_command = bool(code) and code[-1].strip() and not code[-1].lstrip().startswith("#")
        if line.lstrip().startswith("#") and after_command and not code[-1].rstrip().endswith("\\"):
            start, shown = i, []
            while i < len(lines) and lines[i].lstrip().startswith("#"):
                shown.append(re.sub(r"^\s*# ?", "", lines[i]))
                i += 1
            out.append(("\n".join(code), Shown(block.path, block.line + 1 + start, "\n".join(shown), whole=False)))
            code = []
            continue
        code.append(line)
        i += 1
    if code:
        out.append(("\n".join(code), None))
    return out


def reading_order() -> list[Path]:
    """README.md, then the guides in the order its Documentation table lists them."""
    readme = (ROOT / "README.md").read_text()
    table = readme.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| \[(docs/[\w-]+\.md)\]\(", table, re.M)
    return [ROOT / "README.md", *(ROOT / name for name in listed)]


def documents() -> list[Path]:
    return reading_order()


def blocks(path: Path) -> list[Block]:
    out: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match and match.group(1):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append(Block(path, start, (match.group(1) + match.group(2)).strip(), "\n".join(body)))
        i += 1
    return out


def test_every_norun_block_says_why_in_its_first_line():
    missing = [
        f"{b.path.name}:{b.line}"
        for path in documents()
        for b in blocks(path)
        if b.info.split()[:1] == ["sh"] and not b.runs
        and not re.match(r"#\s*\S+", b.text.splitlines()[0] if b.text else "")
    ]
    assert not missing, missing


def test_readme_lists_every_guide_once_in_its_documentation_table():
    listed = [p.relative_to(ROOT).as_posix() for p in reading_order()[1:]]
    guides = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
    assert sorted(listed) == guides and len(set(listed)) == len(listed), listed


def test_the_documents_run_some_blocks_at_all():
    runnable = {p.name: sum(b.runs for b in blocks(p)) for p in documents()}
    assert runnable["README.md"] >= 1 and runnable["api.md"] >= 20 and runnable["operations.md"] >= 3, runnable


# -- the repository stands alone ------------------------------------------------------------

OUTSIDE = re.compile("|".join(re.escape(s) for s in ("../" + "shared", "RULES" + ".md", "API" + ".md")))


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in listed.decode().split("\0") if name]


def text_of(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:  # a deleted but still listed file, a dangling link
        return None
    if b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", errors="replace")


def test_nothing_in_the_repository_cites_a_document_outside_it():
    cited = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                cited.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not cited, "\n".join(cited)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text()
    heads = {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}
    return heads | set(re.findall(r'<a id="([\w-]+)"', text))


DOC_LINK = re.compile(r"docs/([\w-]+\.md)#([\w-]+)((?:, #[\w-]+)*)")
LOCAL_LINK = re.compile(r"\]\(#([\w-]+)\)")


def test_every_docs_anchor_cited_in_the_repository_exists():
    known = {f"docs/{p.name}": anchors(p) for p in (ROOT / "docs").glob("*.md")}
    known["README.md"] = anchors(ROOT / "README.md")
    broken = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        rel = str(path.relative_to(ROOT))
        for match in DOC_LINK.finditer(text):
            doc = f"docs/{match.group(1)}"
            if doc in PENDING and doc not in known:
                continue
            names = [match.group(2)] + re.findall(r"#([\w-]+)", match.group(3))
            broken += [f"{rel}: {doc}#{n}" for n in names if n not in known.get(doc, set())]
        if rel in known or rel == "README.md":
            own = known.get(rel) or known["README.md"]
            broken += [f"{rel}: #{n}" for n in LOCAL_LINK.findall(text) if n not in own]
    assert not broken, "\n".join(broken)


def test_every_problem_type_is_explained_in_the_guide():
    from service.api.schemas.problems import PROBLEM_TYPES

    guide = (ROOT / "docs/api.md").read_text()
    section = guide.split("### Problem types", 1)[1].split("\n## ", 1)[0]
    missing = [p for p in PROBLEM_TYPES if f"`/problems/{p}`" not in section]
    assert not missing, missing


def test_every_environment_variable_the_code_reads_is_in_the_operations_table():
    names: set[str] = set()
    for path in [*(ROOT / "service").rglob("*.py"), ROOT / "gunicorn.conf.py"]:
        text = path.read_text()
        names |= set(re.findall(r"""os\.environ(?:\.get)?[\[(]\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        names |= set(re.findall(r"""(?:os\.getenv|_setting|_number)\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        names |= set(re.findall(r"""\blog_level\(\s*os\.environ,\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        # a mapping of the environment handed in (the dispatcher's `env.get`), and the names kept
        # as constants (`ENV = "SIGNING_KEY_FILE"`, `ALLOW_PRIVATE_ENV = ...`) where they are read
        names |= set(re.findall(r"""\benv\.get\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        # the dispatcher's checked reads (`read.count("WEBHOOK_CONCURRENCY", ...)`)
        names |= set(re.findall(r"""\bread\.(?:count|number|schedule|duration)\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        names |= set(re.findall(r"""^(?:[A-Z_]+_)?ENV\s*=\s*["']([A-Z][A-Z0-9_]+)["']""", text, re.M))
    guide = (ROOT / "docs/operations.md").read_text()
    table = guide.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)`", table, re.M))
    assert names, "found no environment variable in the code: the pattern is wrong"
    assert names <= documented, sorted(names - documented)
    assert documented <= names, f"documented but never read: {sorted(documented - names)}"


# -- the examples run -----------------------------------------------------------------------


@pytest.fixture
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A project directory as `make run` leaves it, and its live server's API and metrics
    ports: one for all the documents, as a reader has one."""
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients

    project = tmp_path_factory.mktemp("docs-project")
    (project / "var").mkdir()
    (project / "service").symlink_to(ROOT / "service")  # service/examples/...
    url = f"sqlite:///{project / 'var' / 'capsa.db'}"
    upgrade(url)
    db = Database(url)
    try:
        _client, key = clients.create_client(db, "demo")
    finally:
        db.dispose()
    key_file = project / "var" / "demo.key"
    key_file.write_text(key + "\n")
    key_file.chmod(0o600)
    # As `make run`: a signing key for the receipts, and loopback webhook receivers allowed.
    keys = project / "var" / "signing-keys.json"
    subprocess.run(
        [sys.executable, "-m", "service.cli", "keys", "create", "--file", str(keys)],
        check=True, capture_output=True, env={**os.environ, "DATABASE_URL": url},
    )
    metrics = free_port()
    with Gunicorn(
        url,
        workers=2,
        RATE_LIMIT="1200/minute",
        RATE_LIMIT_ANONYMOUS="600/minute",
        METRICS_BIND=f"127.0.0.1:{metrics}",
        SIGNING_KEY_FILE=str(keys),
        WEBHOOK_ALLOW_PRIVATE="1",
    ) as server:
        yield project, f"{server.port}:{metrics}"


KEPT = ("var", "service", ".shown")  # what the work directory holds besides the examples' files


def script_of(paths: list[Path], api: str, metrics: str, postgres: bool = False) -> tuple[str, list[Shown]]:
    """One script for the documents, in order, and the outputs they show: the code before the
    n-th of them writes what it prints (stdout and stderr) to `.shown/n.out`, then prints it.
    After each document the script stops if an example wrote a file outside var/."""
    parts = [
        "set -euo pipefail",
        # fd 9 is the script's stderr: inside a captured group (stdout and stderr to $SHOWN_OUT)
        # the trap still reports there, after what the failing command printed
        "exec 9>&2",
        'trap \'cat "$SHOWN_OUT" >&9 2>/dev/null; echo "FAILED: the block at $BLOCK_AT" >&9\' ERR',
        "mkdir -p .shown",
        "SHOWN_OUT=/dev/null",
    ]
    keep = " ".join(f"-e {name}" for name in KEPT)
    shown: list[Shown] = []
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        for block in blocks(path):
            if not (block.runs or block.shows_a_command) or block.needs_postgres and not postgres:
                continue
            parts += [f"BLOCK_AT={rel}:{block.line}", f"echo '--- {rel}:{block.line}'"]
            for code, show in segments(block):
                code = code.replace("127.0.0.1:8000", f"127.0.0.1:{api}").replace("127.0.0.1:9100", f"127.0.0.1:{metrics}")
                if show is None:
                    parts.append(code)
                    continue
                out = f".shown/{len(shown)}.out"
                # a `text` block's command may fail on purpose: what it prints is the check
                tolerate = " || true" if show.whole else ""
                parts += [f"SHOWN_OUT={out}", "{", code, f"}} > {out} 2>&1{tolerate}", f"cat {out}", "SHOWN_OUT=/dev/null"]
                shown.append(show)
        # A reader runs the examples in the repository: what they write goes under var/ (ignored)
        parts.append(
            f"STRAYS=$(ls -A | grep -vxF {keep} | tr '\\n' ' ' || true); "
            f'if [ -n "$STRAYS" ]; then echo "FAILED: {rel}\'s examples wrote outside var/ '
            f'(where git would see them): $STRAYS" >&9; exit 97; fi'
        )
    return "\n".join(parts) + "\n", shown


def shown_mismatches(work: Path, shown: list[Shown]) -> list[str]:
    found = []
    for n, show in enumerate(shown):
        out = work / ".shown" / f"{n}.out"
        if not out.exists():
            continue  # the script stopped before it: the exit code says why
        why = mismatch(show.text, out.read_text(), whole=show.whole)
        if why:
            found.append(f"{show.path.relative_to(ROOT).as_posix()}:{show.line}: {why}")
    return found


@contextmanager
def postgres_pair(project: Path) -> Iterator[dict[str, str]]:
    """`LIVE` and `RESTORED` for the `sh postgres` blocks (see the module's docstring)."""
    from conftest import create_pg_database, drop_pg_database, make_app

    from service.adapters.migrate import upgrade

    sys.path.insert(0, str(ROOT / "tests" / "api"))
    from httpkit import two_player_round

    admin = pg_admin_url()
    assert admin is not None
    made: list[str] = []
    try:
        live, name = create_pg_database(admin)
        made.append(name)
        upgrade(live)
        app = make_app(live, SIGNING_KEY_FILE=str(project / "var" / "signing-keys.json"))
        from service.services import clients

        _client, key = clients.create_client(app.extensions["capsa"].db, "demo")
        http = app.test_client()
        for _ in range(2):
            answer = http.post("/v1/rounds", json=two_player_round(), headers={"Authorization": f"Bearer {key}"})
            assert answer.status_code == 201, answer.data
        app.extensions["capsa"].db.dispose()
        restored, name = create_pg_database(admin)
        made.append(name)
        libpq = {"LIVE": live, "RESTORED": restored}
        yield {k: v.replace("postgresql+psycopg://", "postgresql://", 1) for k, v in libpq.items()}
    finally:
        for name in made:
            drop_pg_database(admin, name)


def test_the_documents_run_in_the_readme_order_on_one_server(demo_project):
    """README.md, then every guide in README's order, on one server and one database, in
    one shell: as a reader runs them after `make run` (see the module's docstring)."""
    project, ports = demo_project
    api, metrics = ports.split(":")
    paths = reading_order()
    stack = ExitStack()
    postgres: dict[str, str] = {}
    if pg_admin_url() is not None and any(b.needs_postgres for p in paths for b in blocks(p)):
        postgres = stack.enter_context(postgres_pair(project))
    script, shown = script_of(paths, api, metrics, postgres=bool(postgres))
    env = {
        **os.environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
        **postgres,
    }
    for name in ("BLOCK_AT", "DATABASE_URL", "SIGNING_KEY_FILE"):  # none is set in a reader's shell
        env.pop(name, None)
    work = project / f"run-{secrets.token_hex(3)}"
    work.mkdir()
    for entry in ("var", "service"):
        (work / entry).symlink_to(project / entry)
    with stack:
        done = subprocess.run(
            ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=900
        )
    if os.environ.get("DOCS_EXAMPLES_OUT"):  # to read what the examples print
        Path(os.environ["DOCS_EXAMPLES_OUT"], "docs-examples.out").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"--- stdout\n{done.stdout[-6000:]}\n--- stderr\n{done.stderr[-4000:]}"
    wrong = shown_mismatches(work, shown)
    assert not wrong, "what the document shows is not what the command printed:\n" + "\n".join(wrong)
