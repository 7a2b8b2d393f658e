"""`POST /v1/rounds/{id}/view-link`: a signed link to a round's page for people."""

from __future__ import annotations

from marshmallow import fields

from ..fields import openapi_meta
from .bases import Out


class ViewLinkSchema(Out):
    url = fields.String(required=True, metadata=openapi_meta("/view/rounds/WyJjbGlfMDEiLCJybmRfMDEiXQ.Z2x1.c2ln"))
    expires_at = fields.String(required=True, metadata=openapi_meta("2026-11-29T11:00:00.000Z", format="date-time"))
