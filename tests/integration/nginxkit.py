"""nginx for the tests: Debian's binary, and deploy/nginx.conf.template rendered as envsubst does."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def require_nginx() -> str:
    """The nginx binary; without one the test is skipped, except under CI=true (.ci/run
    installs it), where that is a failure."""
    found = nginx_binary()
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is not installed (CI=true): .ci/run installs it with apt-get")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return found


def render(template: str, **values: str) -> str:
    """What `envsubst '${UPSTREAM} ${LISTEN}'` writes (make nginx-conf, the nginx image)."""
    for name, value in values.items():
        template = template.replace("${" + name + "}", value)
    assert "${" not in template, "a template variable was left unset"
    return template


def start_nginx(nginx: str, prefix: Path, upstream: int, listen: int) -> subprocess.Popen[bytes]:
    """deploy/nginx.conf.template for these ports, run in the foreground with its own prefix
    (readable by nobody, whom nginx's workers run as under root)."""
    conf = prefix / "nginx.conf"
    conf.write_text(render(TEMPLATE.read_text(), UPSTREAM=f"127.0.0.1:{upstream}", LISTEN=f"127.0.0.1:{listen}"))
    with (prefix / "nginx.stderr").open("wb") as log:
        return subprocess.Popen(
            [nginx, "-p", f"{prefix}/", "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=log,
        )
