"""Persistence: SQLAlchemy models, engine set-up and the unit of work (the only SQLAlchemy users)."""
