"""WSGI entry point for gunicorn: `service.api.wsgi:app`."""

from service.api import create_app

app = create_app()
