"""The write path's tables stop checking their client by foreign key

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03 23:30:00.000000

Every stored round inserted three rows with a foreign key to `clients` (its chain record,
its round, its Idempotency-Key claim): three referential-integrity checks, each a query of
its own inside PostgreSQL that also locks the client's row (a WAL record per round), about
0.1-0.2 ms of PostgreSQL CPU per round here. None of them could ever fail: the chain
record and the round are written only from the client's chain head (the one-statement
write selects them FROM the head it advanced; SQLite's write reads the head first), and
the head keeps its own foreign key to the client; a claim is made only for a client whose
key was just authenticated; clients are never deleted. So `chain_records`, `rounds` and
`idempotency_records` lose those three constraints, as `ledger_lines` and
`chain_signatures` never had them. The references between a client's own tables (games
to rounds, deals and matches) stay.

On PostgreSQL this is a catalog change under a short lock (lock_timeout 5 s), online for
the write path; the downgrade adds the constraints NOT VALID, then validates them under
SHARE UPDATE EXCLUSIVE, which blocks no reads or writes. On SQLite the tables are rebuilt
(batch mode), as every earlier migration does; a rebuild drops the table's triggers, so
chain_records' balance trigger (migration 0005) is made again after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, constraint): each table's client_id -> clients.id
REFERENCES = [
    ("chain_records", "fk_chain_records_client_id_clients"),
    ("rounds", "fk_rounds_client_id_clients"),
    ("idempotency_records", "fk_idempotency_records_client_id_clients"),
]
# SQLite's check that a record's lines sum to zero (migration 0005), on chain_records.
SQLITE_BALANCED_TRIGGER = """
CREATE TRIGGER ledger_lines_balanced AFTER INSERT ON chain_records
WHEN (SELECT COALESCE(SUM(amount), 0) FROM ledger_lines
       WHERE client_id = NEW.client_id AND sequence = NEW.sequence) <> 0
BEGIN
    SELECT RAISE(ABORT, 'ledger_lines_balanced: the lines of this record do not sum to zero');
END
"""


def _balance_trigger_again() -> None:
    op.execute("DROP TRIGGER IF EXISTS ledger_lines_balanced")
    op.execute(SQLITE_BALANCED_TRIGGER)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL lock_timeout = '5s'")
        for table, name in REFERENCES:
            op.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}")
        return
    for table, name in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="foreignkey")
    _balance_trigger_again()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL lock_timeout = '5s'")
        for table, name in REFERENCES:
            op.execute(
                f"ALTER TABLE {table} ADD CONSTRAINT {name} FOREIGN KEY (client_id) REFERENCES clients (id) NOT VALID"
            )
        with op.get_context().autocommit_block():
            for table, name in REFERENCES:
                op.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}")
        return
    for table, name in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(name, "clients", ["client_id"], ["id"])
    _balance_trigger_again()
