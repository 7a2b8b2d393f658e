"""Alembic migrations, shipped inside the package so `capsa db upgrade` works anywhere."""
