"""A lock timeout says where it waited: on another request's Idempotency-Key (409
idempotency-in-flight for a keyed request) or on a row the request needs (503, retry):
read from PostgreSQL's context of the error."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from service.adapters.errors import LockTimeout
from service.adapters.translate import _driver_error


def timeout(context: str | None) -> LockTimeout:
    orig = SimpleNamespace(sqlstate="55P03", diag=SimpleNamespace(constraint_name=None, context=context))
    error = _driver_error(orig)  # type: ignore[arg-type]
    assert isinstance(error, LockTimeout)
    return error


@pytest.mark.parametrize(
    ("context", "relation", "on_key"),
    [
        ('while locking tuple (0,1) in relation "chain_heads"', "chain_heads", False),
        ('while updating tuple (3,7) in relation "games"\nSQL statement "..."', "games", False),
        ('while inserting index tuple (0,4) in relation "uq_idempotency_client_method_path_key"',
         "uq_idempotency_client_method_path_key", True),
        ('while locking tuple (0,2) in relation "idempotency_records"', "idempotency_records", True),
        (None, None, True),  # nowhere said: taken for the key, as before
        ("", None, True),
    ],
)
def test_a_lock_timeout_names_the_relation_it_waited_on(context: str | None, relation: str | None, on_key: bool) -> None:
    error = timeout(context)
    assert (error.relation, error.on_key) == (relation, on_key)
