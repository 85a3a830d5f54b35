# The bot in a container: python -m bot as a non-root user, the SQLite database on the
# /data volume (or PostgreSQL with DATABASE_URL). Build: docker build -t preferans-bot .
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY storage ./storage
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin preferans \
    && mkdir -p /data \
    && chown preferans /data

USER preferans
WORKDIR /data
ENV DATABASE_PATH=/data/preferans.sqlite3
VOLUME ["/data"]
# webhook mode only (WEBHOOK_URL, PORT); long polling needs no port
EXPOSE 8443
# webhook mode: the bot's /healthz; long polling: the database and Telegram's getMe
HEALTHCHECK --interval=60s --timeout=20s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]
CMD ["python", "-m", "bot"]
