"""HTTP layer: the Flask app factory, one blueprint per resource, schemas, errors, auth."""

from .app import create_app

__all__ = ["create_app"]
