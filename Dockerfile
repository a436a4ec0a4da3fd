# Majlis in a container: `docker build -t majlis .`, then `docker run --env-file .env -v majlis-data:/data majlis`
# (compose.yaml runs two workers with PostgreSQL, Redis and a proxy for Telegram's webhook).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# The fonts the pictures use ship inside the package (renderers/fonts: IBM Plex Sans Arabic), so no font package is
# needed. Pillow's wheel shapes Arabic with the raqm it bundles, which loads FriBiDi from the system: libfribidi0,
# or the pictures fall back to the simpler shaping of arabic-reshaper and python-bidi.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfribidi0 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY renderers renderers
COPY storage storage
COPY bot bot
RUN pip install . \
    && useradd --create-home --uid 10001 majlis \
    && mkdir -p /data \
    && chown majlis /data

USER majlis
# The working folder is the data volume: relative defaults (./data/... when .env leaves a setting empty) land in it.
WORKDIR /data
# /data keeps the SQLite database of a single container (PostgreSQL for several: compose.yaml). The pid file is
# what `majlis drain` signals; /healthz answers on the metrics port.
ENV DATABASE_URL=/data/majlis.db MAJLIS_PID_FILE=/tmp/majlis.pid MAJLIS_METRICS_PORT=9100
VOLUME /data
EXPOSE 8443 9100
# SIGTERM drains: no new tables, the moves under way and their screens finish, within MAJLIS_DRAIN_SECONDS (20);
# give `docker stop` more than that (docker stop -t 30, compose.yaml's stop_grace_period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ['MAJLIS_METRICS_PORT'], timeout=4)"
ENTRYPOINT ["majlis"]
CMD ["run"]
