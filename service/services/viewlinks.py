"""Round view links: an HMAC-signed, expiring token naming (client, round); no API key in URLs.

The key is VIEW_LINK_SECRET when configured, else a secret made once and kept in the
database, so every worker (and every restart) signs and checks with the same key.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from service.adapters.ledger import AuditRepository
from service.adapters.uow import Database

from . import rounds
from .errors import NotFound
from .ids import rfc3339, utcnow_ms

SALT = "capsa.round-view.v1"
SECRET_NAME = "view-link"
DEFAULT_TTL = 3600


def stored_secret(db: Database) -> str:
    """The shared view-link secret from the database (made by the first caller)."""
    with db.unit_of_work(write=True) as uow:
        value = AuditRepository(uow.session).secret(SECRET_NAME, utcnow_ms())
        uow.commit()
    return value


class ViewLinks:
    def __init__(self, secret: str, ttl: int = DEFAULT_TTL) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt=SALT)
        self.ttl = ttl

    def create(self, db: Database, client_id: str, round_id: str) -> dict[str, Any]:
        """`POST /v1/rounds/{id}/view-link`: a link to a round of this client (404 otherwise)."""
        rounds.get(db, client_id, round_id)
        token = self._serializer.dumps([client_id, round_id])
        expires = utcnow_ms().replace(microsecond=0) + timedelta(seconds=self.ttl)
        return {"url": f"/view/rounds/{token}", "expires_at": rfc3339(expires)}

    def open(self, db: Database, token: str) -> dict[str, Any]:
        """The round document a token names; NotFound when forged, expired or gone."""
        try:
            client_id, round_id = self._serializer.loads(token, max_age=self.ttl)
        except (BadSignature, ValueError, TypeError) as exc:
            raise NotFound("this link is not valid or has expired") from exc
        if not isinstance(client_id, str) or not isinstance(round_id, str):
            raise NotFound("this link is not valid or has expired")
        return rounds.get(db, client_id, round_id)
