"""The database the service and `capsa` use when DATABASE_URL is not set (no SQLAlchemy here:
the commands' help texts print it without loading the database layer)."""

DEFAULT_DATABASE_URL = "sqlite:///var/capsa.db"
