"""ledger balance trigger: plan its query on every call

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 13:50:00.000000

PL/pgSQL caches the plan of a static query per database connection. The balance check ran
first while `ledger_lines` was nearly empty, so a connection kept a sequential-scan plan as
the table grew: every commit of a round scanned every line ever booked, and a connection's
commits got slower with each round it wrote (13 ms after 1,000 rounds, 5.8 ms again on a
fresh connection). EXECUTE plans the query per call, with the unique index
(client_id, sequence, line_no) and the current statistics.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BODY = """
CREATE OR REPLACE FUNCTION ledger_lines_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
BEGIN
    {select}
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger lines of record % of client % sum to %, not 0',
            NEW.sequence, NEW.client_id, total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_lines_balanced';
    END IF;
    RETURN NULL;
END $$
"""
PER_CALL = _BODY.format(
    select="EXECUTE 'SELECT COALESCE(SUM(amount), 0) FROM ledger_lines "
    "WHERE client_id = $1 AND sequence = $2' INTO total USING NEW.client_id, NEW.sequence;"
)
CACHED = _BODY.format(
    select="SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_lines "
    "WHERE client_id = NEW.client_id AND sequence = NEW.sequence;"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PER_CALL)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(CACHED)
