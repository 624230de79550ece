# The Scorpion web application: one image for the app and its one-shot migration.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/scorpion-metrics

WORKDIR /srv/scorpion

COPY pyproject.toml ./
COPY app ./app
RUN pip install .

COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static

RUN useradd --system --no-create-home scorpion
USER scorpion
# The static files' hashed names and compressed bodies, made once here by servestatic
# (app/web/assets.py) rather than by each worker at its start.
RUN python -c "from app.web.assets import collect; print(collect())"

EXPOSE 8000
# Several stateless workers; the database (PostgreSQL) holds all state. Behind a reverse
# proxy that terminates TLS, set FORWARDED_ALLOW_IPS to its address. The workers add up
# their metrics in PROMETHEUS_MULTIPROC_DIR, emptied at each start (stale files of an earlier
# run would count twice). uvicorn's own access log is off: the app's names route templates.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
CMD ["sh", "-c", "if [ -n \"$PROMETHEUS_MULTIPROC_DIR\" ]; then rm -rf \"$PROMETHEUS_MULTIPROC_DIR\"; mkdir -p \"$PROMETHEUS_MULTIPROC_DIR\"; fi; exec uvicorn app.main:app --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY:-4} --timeout-graceful-shutdown 3 --proxy-headers --forwarded-allow-ips ${FORWARDED_ALLOW_IPS:-127.0.0.1} --no-access-log"]
