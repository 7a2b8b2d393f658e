"""Persistence: SQLAlchemy models, engine set-up and the unit of work (the only SQLAlchemy users)."""

# The audit tables live in their own module; importing it here puts them on Base.metadata
# wherever the models are used (Alembic's env, the app, the tests).
from . import ledger_models as ledger_models  # noqa: E402
