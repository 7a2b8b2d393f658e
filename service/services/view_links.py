"""Round view links: an HMAC-signed, expiring token naming (client, round); no API key in URLs.

The key is VIEW_LINK_SECRET when configured, else a secret made once and kept in the
database, so every worker (and every restart) signs and checks with the same key.

Rotation: new links are always signed with the current secret; the secrets in
VIEW_LINK_PREVIOUS_SECRET (one, or several separated by commas) are still accepted when a
link is opened, so links handed out before the rotation keep working for their lifetime
(VIEW_LINK_TTL, default 1 hour). Remove the previous secret once that time has passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from service.adapters.uow import Database
from service.services import service_secrets
from service.services.clock import epoch_ms, rfc3339, utcnow_ms
from service.services.errors import NotFound
from service.services.rounds import store as rounds

SALT = "capsa.round-view.v1"
SECRET_NAME = "view-link"
DEFAULT_TTL = 3600


def stored_secret(db: Database) -> str:
    """The shared view-link secret from the database (made by the first caller)."""
    return service_secrets.stored(db, SECRET_NAME)


def previous_secrets(setting: str | None) -> list[str]:
    """VIEW_LINK_PREVIOUS_SECRET as a list: comma-separated, blanks around each ignored.

    >>> previous_secrets(" old-1, old-2 ,"), previous_secrets(None)
    (['old-1', 'old-2'], [])
    """
    return [part.strip() for part in (setting or "").split(",") if part.strip()]


class ViewLinks:
    """Signs links with `secret`; opens links signed with it or with any of `previous`."""

    def __init__(self, secret: str, ttl: int = DEFAULT_TTL, previous: Sequence[str] = ()) -> None:
        # itsdangerous signs with the last key of the list and verifies against every one.
        keys = [key for key in previous if key != secret] + [secret]
        self._serializer = URLSafeTimedSerializer(keys, salt=SALT)
        self.ttl = ttl

    def create(self, db: Database, client_id: str, round_id: str) -> dict[str, Any]:
        """`POST /v1/rounds/{id}/view-link`: a link to a round of this client (404 otherwise).
        Its `expires_at` is signed into it (milliseconds since the epoch), so the link stops
        then, whatever VIEW_LINK_TTL is when it is opened."""
        rounds.get(db, client_id, round_id)
        expires = utcnow_ms() + timedelta(seconds=self.ttl)
        token = self._serializer.dumps([client_id, round_id, epoch_ms(expires)])
        return {"url": f"/view/rounds/{token}", "expires_at": rfc3339(expires)}

    def open(self, db: Database, token: str) -> dict[str, Any]:
        """The round document a token names; NotFound when forged, expired or gone. A link
        stops at its signed `expires_at`, and also once older than this node's TTL (a link
        made before expiries were signed into them has only that)."""
        try:
            payload = self._serializer.loads(token, max_age=self.ttl)
        except (BadSignature, ValueError, TypeError) as exc:
            raise NotFound("this link is not valid or has expired") from exc
        if not isinstance(payload, list) or len(payload) not in (2, 3):
            raise NotFound("this link is not valid or has expired")
        client_id, round_id, *until = payload
        if not isinstance(client_id, str) or not isinstance(round_id, str):
            raise NotFound("this link is not valid or has expired")
        if until and (not isinstance(until[0], int) or epoch_ms(utcnow_ms()) >= until[0]):
            raise NotFound("this link is not valid or has expired")
        return rounds.get(db, client_id, round_id)
