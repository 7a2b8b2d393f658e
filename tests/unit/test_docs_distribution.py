"""docs/operations.md's plan for distributing by client (Citus) against the schema: every
table of the models is placed once, and a distributed table keys every row by its client.

The plan cannot be run here (Citus is not installed), so what it must hold is checked
statically: a table the plan leaves out would stay on the coordinator, and a unique key
without `client_id` cannot be enforced across shards.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import ForeignKeyConstraint, UniqueConstraint

from service.adapters.models import Base

DOC = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
SECTION = DOC.split("## Beyond one primary", 1)[1].split("\n## ", 1)[0]
REFERENCE = re.findall(r"create_reference_table\('(\w+)'\)", SECTION)
DISTRIBUTED = re.findall(r"create_distributed_table\('(\w+)', 'client_id'", SECTION)


def test_the_plan_places_every_table_of_the_schema_once():
    placed = REFERENCE + DISTRIBUTED
    assert len(placed) == len(set(placed)), "a table placed twice"
    assert sorted(placed) == sorted(Base.metadata.tables)


def test_every_distributed_table_keys_and_refers_by_its_client_first():
    for name in DISTRIBUTED:
        table = Base.metadata.tables[name]
        assert [c.name for c in table.primary_key.columns][0] == "client_id", name
        for constraint in table.constraints:
            if isinstance(constraint, UniqueConstraint):
                assert "client_id" in constraint.columns, (name, constraint.name)
            if isinstance(constraint, ForeignKeyConstraint) and constraint.referred_table.name in DISTRIBUTED:
                assert constraint.column_keys[0] == "client_id", (name, constraint.name)


def test_a_table_is_distributed_after_the_tables_it_refers_to():
    for i, name in enumerate(DISTRIBUTED):
        for constraint in Base.metadata.tables[name].foreign_key_constraints:
            referred = constraint.referred_table.name
            assert referred in REFERENCE or DISTRIBUTED.index(referred) <= i, (name, referred)


def test_the_sql_scope_check_covers_every_distributed_table():
    """tests/sqlscope.py fails a session on a statement that does not name its client, on
    the tables it lists: the plan's distributed tables, every one (a new table was left out
    of it once)."""
    from sqlscope import CLIENT_TABLES

    assert CLIENT_TABLES == set(DISTRIBUTED)
