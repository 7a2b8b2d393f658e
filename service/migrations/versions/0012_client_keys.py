"""Ready to shard: client_id in every key of a client's tables

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 21:00:00.000000

Past one primary the tables holding a client's data are distributed by `client_id`
(Citus), which needs the column in every primary key, unique constraint and foreign key.
`rounds`, `deals`, `games`, `matches`, `susun_games` and `webhooks` had id-only keys: they
become (client_id, id), `webhook_deliveries` (client_id, webhook_id, event_id), the void
index of `chain_records` (client_id, round_id), and the references between them name the
client: games -> deals, rounds, matches and susun_games -> deals, rounds by
(client_id, x_id). `webhook_attempts` gains the `client_id` its endpoint has, and the key
(client_id, id) on PostgreSQL (SQLite keeps numbering attempts by its rowid).

On PostgreSQL the migration is online for the write path: each new unique index is built
CONCURRENTLY first, then one short transaction (lock_timeout 5 s) drops the old keys and
foreign keys and attaches the new indexes `USING INDEX` (catalog changes only: the key
columns are already NOT NULL), and adds the new foreign keys NOT VALID; each is validated
afterwards under SHARE UPDATE EXCLUSIVE, which blocks no reads or writes. Stop the webhook
dispatchers while it runs (deliveries wait: they are queued from the chain): attempts they
write before the new release would have no client. On SQLite each table is rebuilt (batch
mode), as every earlier migration does.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Tables whose primary key becomes (client_id, <these>).
KEYS: dict[str, tuple[str, ...]] = {
    "rounds": ("id",),
    "deals": ("id",),
    "matches": ("id",),
    "games": ("id",),
    "susun_games": ("id",),
    "webhooks": ("id",),
    "webhook_deliveries": ("webhook_id", "event_id"),
}
# (table, name, column, referred table): each reference becomes (client_id, column).
REFERENCES = [
    ("games", "fk_games_deal_id_deals", "deal_id", "deals"),
    ("games", "fk_games_round_id_rounds", "round_id", "rounds"),
    ("games", "fk_games_match_id_matches", "match_id", "matches"),
    ("susun_games", "fk_susun_games_deal_id_deals", "deal_id", "deals"),
    ("susun_games", "fk_susun_games_round_id_rounds", "round_id", "rounds"),
]
VOID = "uq_chain_records_void"
ATTEMPTS_INDEX = "ix_webhook_attempts_webhook"
# An attempt's client is its endpoint's (every attempt has one: endpoints go with theirs).
_BACKFILL = (
    "UPDATE webhook_attempts SET client_id = "
    "(SELECT webhooks.client_id FROM webhooks WHERE webhooks.id = webhook_attempts.webhook_id) "
    "WHERE client_id IS NULL"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_online()
    else:
        _upgrade_rebuilding()


def _upgrade_online() -> None:
    def new_key(table: str) -> str:
        return f"pk_{table}_0012"

    with op.get_context().autocommit_block():
        for table, columns in KEYS.items():
            _build(f"CREATE UNIQUE INDEX CONCURRENTLY {new_key(table)} ON {table} (client_id, {', '.join(columns)})")
        _build(
            f"CREATE UNIQUE INDEX CONCURRENTLY {VOID}_0012 ON chain_records (client_id, round_id) "
            "WHERE kind = 'void'"
        )
    # One short transaction of catalog changes; it waits at most 5 s for each lock.
    op.execute("SET LOCAL lock_timeout = '5s'")
    for table, name, _, _ in REFERENCES:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
    for table in KEYS:
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT pk_{table}, "
            f"ADD CONSTRAINT pk_{table} PRIMARY KEY USING INDEX {new_key(table)}"
        )
    op.execute(f"DROP INDEX {VOID}")
    op.execute(f"ALTER INDEX {VOID}_0012 RENAME TO {VOID}")
    for table, name, column, referred in REFERENCES:
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {name} FOREIGN KEY (client_id, {column}) "
            f"REFERENCES {referred} (client_id, id) NOT VALID"
        )
    op.execute("ALTER TABLE webhook_attempts ADD COLUMN client_id VARCHAR(32)")
    with op.get_context().autocommit_block():
        for table, name, _, _ in REFERENCES:
            op.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}")
        # NOT NULL without a scan under an exclusive lock: a validated CHECK proves it.
        op.execute(_BACKFILL)
        op.execute(
            "ALTER TABLE webhook_attempts ADD CONSTRAINT ck_webhook_attempts_client_id_0012 "
            "CHECK (client_id IS NOT NULL) NOT VALID"
        )
        op.execute("ALTER TABLE webhook_attempts VALIDATE CONSTRAINT ck_webhook_attempts_client_id_0012")
        op.execute("ALTER TABLE webhook_attempts ALTER COLUMN client_id SET NOT NULL")
        op.execute("ALTER TABLE webhook_attempts DROP CONSTRAINT ck_webhook_attempts_client_id_0012")
        _build(f"CREATE UNIQUE INDEX CONCURRENTLY {new_key('webhook_attempts')} ON webhook_attempts (client_id, id)")
        _build(
            f"CREATE INDEX CONCURRENTLY {ATTEMPTS_INDEX}_0012 ON webhook_attempts (client_id, webhook_id, id)"
        )
        op.execute(
            "ALTER TABLE webhook_attempts DROP CONSTRAINT pk_webhook_attempts, "
            f"ADD CONSTRAINT pk_webhook_attempts PRIMARY KEY USING INDEX {new_key('webhook_attempts')}"
        )
        op.execute(f"DROP INDEX CONCURRENTLY {ATTEMPTS_INDEX}")
        op.execute(f"ALTER INDEX {ATTEMPTS_INDEX}_0012 RENAME TO {ATTEMPTS_INDEX}")


def _build(create: str) -> None:
    """Build an index CONCURRENTLY, first dropping an invalid one a failed run left."""
    name = create.split(" CONCURRENTLY ", 1)[1].split()[0]
    op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
    op.execute(create)


def _upgrade_rebuilding() -> None:
    for table, name, _, _ in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="foreignkey")
    for table, columns in KEYS.items():
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"pk_{table}", type_="primary")
            batch.create_primary_key(f"pk_{table}", ["client_id", *columns])
    for table, name, column, referred in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(name, referred, ["client_id", column], ["client_id", "id"])
    op.drop_index(VOID, table_name="chain_records")
    op.create_index(
        VOID, "chain_records", ["client_id", "round_id"], unique=True, sqlite_where=sa.text("kind = 'void'")
    )
    op.add_column("webhook_attempts", sa.Column("client_id", sa.String(32), nullable=True))
    op.execute(_BACKFILL)
    op.drop_index(ATTEMPTS_INDEX, table_name="webhook_attempts")
    with op.batch_alter_table("webhook_attempts") as batch:
        batch.alter_column("client_id", existing_type=sa.String(32), nullable=False)
        batch.create_index(ATTEMPTS_INDEX, ["client_id", "webhook_id", "id"])


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    with op.batch_alter_table("webhook_attempts") as batch:
        batch.drop_index(ATTEMPTS_INDEX)
        if postgresql:
            batch.drop_constraint("pk_webhook_attempts", type_="primary")
            batch.create_primary_key("pk_webhook_attempts", ["id"])
        batch.drop_column("client_id")
        batch.create_index(ATTEMPTS_INDEX, ["webhook_id", "id"])
    op.drop_index(VOID, table_name="chain_records")
    op.create_index(
        VOID,
        "chain_records",
        ["round_id"],
        unique=True,
        sqlite_where=sa.text("kind = 'void'"),
        postgresql_where=sa.text("kind = 'void'"),
    )
    for table, name, _, _ in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="foreignkey")
    for table, columns in KEYS.items():
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"pk_{table}", type_="primary")
            batch.create_primary_key(f"pk_{table}", list(columns))
    for table, name, column, referred in REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(name, referred, [column], ["id"])
