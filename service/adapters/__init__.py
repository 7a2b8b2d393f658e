"""What the service touches outside itself: the database (SQLAlchemy models, engines,
repositories and the unit of work, the SQLAlchemy code but for `commands.database`'s URL and
schema checks), the webhook HTTP client (`delivery`) and the signing keyring on disk
(`keyfile`)."""
