"""Migration 0010 (Big Two matches) on rows the service wrote under schema 0004, both engines:
the old games and rounds, Big Two ones with version 1 rules among them, answer and re-verify
as before, down to 0005 and up again."""

from __future__ import annotations

from sqlalchemy import MetaData, create_engine
from test_db_migrate_0005 import DATA, _check_everything_the_old_service_answered, old_db  # noqa: F401

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade


def _games(url: str) -> list[dict[str, object]]:
    engine = create_engine(normalise_url(url))
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(meta.tables["games"].select())]
    engine.dispose()
    return rows


def test_migration_0010_leaves_old_games_outside_any_match_and_everything_re_verifies(old_db):  # noqa: F811
    upgrade(old_db)
    games = _games(old_db)
    assert len(games) == len(DATA["tables"]["games"]) == 2
    assert all(g["match_id"] is None and g["leader"] is None for g in games)
    assert {g["rules_json"]["version"] for g in games} == {1}
    _check_everything_the_old_service_answered(old_db)


def test_migration_0010_goes_down_to_0005_and_up_again(old_db):  # noqa: F811
    upgrade(old_db)
    downgrade(old_db, "0005")
    assert "match_id" not in _games(old_db)[0]
    upgrade(old_db)
    _check_everything_the_old_service_answered(old_db)
