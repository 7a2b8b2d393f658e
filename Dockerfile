# syntax=docker/dockerfile:1
# Multi-stage: build a wheel with its dependencies, then a slim runtime without compilers.
# Migrations are NOT run at start: `docker compose run --rm migrate` (or
# `docker run ... capsa db upgrade`) applies them as a separate, explicit step.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
RUN python -m venv /opt/venv \
 && /opt/venv/bin/pip install --upgrade pip \
 && /opt/venv/bin/pip install .

FROM python:3.11-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BIND=0.0.0.0:8000 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus \
    FORWARDED_ALLOW_IPS=*
RUN groupadd --system capsa && useradd --system --gid capsa --home-dir /app --shell /usr/sbin/nologin capsa
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY gunicorn.conf.py ./
RUN mkdir -p /app/var /tmp/prometheus && chown -R capsa:capsa /app/var /tmp/prometheus
USER capsa
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.api.wsgi:app"]
