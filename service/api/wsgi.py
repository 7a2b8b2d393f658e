"""WSGI entry point for gunicorn: `service.api.wsgi:app`.

A setting the service cannot run with (a variable's value, the signing key file) stops the
start in one line naming it, with the exit code of a wrong setting (2, as every `capsa`
command exits on one: README's exit codes), not with the traceback of gunicorn's import."""

import sys

from service.api import create_app
from service.domain.errors import SettingError
from service.domain.signing import KeyringError

WRONG_SETTING = 2

try:
    app = create_app()
except (SettingError, KeyringError) as exc:
    print(f"capsa serve: {exc}", file=sys.stderr)
    raise SystemExit(WRONG_SETTING) from None
