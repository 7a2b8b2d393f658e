# syntax=docker/dockerfile:1
# Multi-stage: the build stage installs exactly the locked packages (hash-checked) and the
# project's wheel into /opt/venv; the runtime stage gets that venv and nothing that installs
# or builds (no pip, setuptools or wheel, no compilers). tests/integration/test_packaging.py
# runs these steps without Docker (`make package-test`).
# Migrations are NOT run at start: `docker compose run --rm migrate` (or
# `docker run ... capsa db upgrade`) applies them as a separate, explicit step.
# Never publish gunicorn's port: nginx goes in front (deploy/nginx.conf, docker-compose.yml).

# The most specific tag: the registry could not be reached to read its digest when this was
# written. Pin the digest where it can be read (the same image for both stages):
#   docker buildx imagetools inspect python:3.11.15-slim-bookworm   -> Digest: sha256:...
#   ARG PYTHON_IMAGE=python:3.11.15-slim-bookworm@sha256:...
ARG PYTHON_IMAGE=python:3.11.15-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# /opt/build holds the pinned build tools; /opt/venv, made without pip, gets the runtime
# dependencies and then the wheel, installed by /opt/build's pip (--python).
COPY requirements-build.lock requirements.lock ./
RUN python -m venv /opt/build \
 && /opt/build/bin/pip install --require-hashes -r requirements-build.lock \
 && python -m venv --without-pip /opt/venv \
 && /opt/build/bin/pip --python /opt/venv/bin/python install --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY service ./service
# The wheel is built with the pinned setuptools (no isolated build fetching an unpinned one).
RUN /opt/build/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /dist . \
 && /opt/build/bin/pip --python /opt/venv/bin/python install --no-deps --no-index /dist/*.whl

FROM ${PYTHON_IMAGE} AS runtime
# The base image's own installer goes too: nothing in the image can install a package.
RUN python -m pip uninstall --yes --quiet setuptools wheel pip
# BIND: every interface of the container, where nginx reaches it over the compose network.
# METRICS_BIND: likewise for a Prometheus on that network; neither port is published.
# FORWARDED_ALLOW_IPS is left at 127.0.0.1: set it to the proxy's address (compose does),
# never to *, or any client could choose its rate-limit address with X-Forwarded-For.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BIND=0.0.0.0:8000 \
    METRICS_BIND=0.0.0.0:9100 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus
RUN groupadd --system capsa && useradd --system --gid capsa --home-dir /app --shell /usr/sbin/nologin capsa
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY gunicorn.conf.py ./
# /app/keys: where Compose mounts the signing keyring's volume (a new named volume takes this
# directory's owner and mode: the keyring is the capsa user's alone).
RUN mkdir -p /app/var /app/keys /tmp/prometheus && chown -R capsa:capsa /app/var /app/keys /tmp/prometheus \
 && chmod 700 /app/keys
USER capsa
EXPOSE 8000 9100
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.api.wsgi:app"]
