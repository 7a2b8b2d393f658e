"""Persistence: SQLAlchemy models, engines, repositories and the unit of work (the only SQLAlchemy users)."""
