# Production image for docker-compose's `migrate`, `web`, `worker` and `beat` services.
# Runtime packages only (requirements.txt); test and lint tools stay out of the image.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.base \
    PIP_DISABLE_PIP_VERSION_CHECK=1 LOG_FORMAT=json
WORKDIR /app
# WeasyPrint (rack sheets) needs Pango, which the slim image lacks; DejaVu gives it fonts to draw with.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
# An unprivileged user runs everything; it owns only the media directory (export files).
RUN groupadd --system --gid 10001 planner \
 && useradd --system --uid 10001 --gid planner --home-dir /app --no-create-home --shell /usr/sbin/nologin planner \
 && mkdir -p /data/media \
 && chown planner:planner /data/media
COPY . .
# Static files are collected once, at build time (whitenoise serves them). The broker URL is a placeholder
# so that settings load without a real broker; nothing connects to it here.
RUN DEBUG=false SECRET_KEY=collectstatic-only CELERY_BROKER_URL=redis://build-only:6379/0 \
    python manage.py collectstatic --noinput
USER planner:planner
# The home (/app) is read-only for planner: matplotlib's and fontconfig's caches go to /tmp.
ENV HOME=/app MPLCONFIGDIR=/tmp/matplotlib XDG_CACHE_HOME=/tmp/cache
EXPOSE 8000
# No curl in the slim image: Python asks the health endpoint, with the first ALLOWED_HOSTS name as Host
# (an error or any answer but 200 is unhealthy). docker-compose gives worker and beat checks of their own.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD python -c "import os, sys, urllib.request as u; h = os.environ.get('ALLOWED_HOSTS', '').split(',')[0].strip().lstrip('.').replace('*', '') or 'localhost'; r = u.urlopen(u.Request('http://127.0.0.1:8000/api/v1/health/', headers={'Host': h}), timeout=4); sys.exit(0 if r.status == 200 else 1)"
# workers, timeouts, request limits and trusted proxies: config/gunicorn.conf.py (from the environment)
CMD ["gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi:application"]
