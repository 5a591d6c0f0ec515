"""Settings for every environment, read from the environment (see README for the variables).

Development (`make run`): SQLite file, DEBUG on, Celery eager. CI and production: set
DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis), DEBUG off with a real SECRET_KEY.
"""

from pathlib import Path

import dj_database_url
from django.core.management.utils import get_random_secret_key

from .env import ImproperlyConfiguredEnv, env_bool, env_list, env_str
from .logging import logging_config
from .sentry import init_sentry

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfiguredEnv("SECRET_KEY must be set when DEBUG is off.")
    # A random key is acceptable only in development: sessions end when the server restarts.
    SECRET_KEY = get_random_secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])  # e.g. https://planner.example.org behind a proxy

# HTTPS=true: the site is served over TLS (directly or behind a proxy that sets X-Forwarded-Proto):
# redirect plain HTTP, mark cookies secure, and tell browsers to keep to HTTPS (HSTS).
HTTPS = env_bool("HTTPS", default=False)
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(env_str("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/health/?$", r"^metrics/?$"]  # load balancers and Prometheus probe over plain HTTP

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_prometheus",  # /metrics: requests, latencies, database (planner/metrics.py adds jobs and queues)
    "hardware_catalog",
    "planner",
    "api",
    "frontend",
    "dcim",
]

MIDDLEWARE = [
    "config.middleware.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
CSRF_FAILURE_VIEW = "api.errors.csrf_failure"  # JSON under /api/, Django's page elsewhere

# Content-Security-Policy on every response: scripts only from this site's files (no inline script,
# no inline event handler, no eval). Styles allow inline attributes: plotly.js and Swagger UI add
# <style> elements and style attributes at run time, and the rack elevation SVG is styled inline.
CONTENT_SECURITY_POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=60,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "frontend:home"
LOGOUT_REDIRECT_URL = "frontend:home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "frontend.finders.PlotlyFinder",  # plotly.js from the installed plotly package
]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic names each file by its content hash (planner.<hash>.css) and compresses it;
    # whitenoise serves hashed names with `max-age=315360000, public, immutable`, so browsers keep
    # them until a deploy changes the file (and so its name). Unhashed names keep the 60 s default.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
if DEBUG:
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))

# Uploads are size-limited everywhere (benchmark outputs are small text files).
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
MAX_REQUEST_BYTES = 4 * 1024 * 1024  # any request; uploads (two 1 MiB benchmark files) fit
API_MAX_BODY_BYTES = 1024 * 1024  # JSON bodies (DesignSpecs are a few kB)
API_ANON_RATE = env_str("API_ANON_RATE", "120/min")  # anonymous requests per client address
API_USER_RATE = env_str("API_USER_RATE", "1200/min")  # requests per signed-in user or token
# Work done inside one request, in candidate designs (see planner/services/budget.py): about 2 us each,
# so 400,000 is under a second; bigger solves go to a worker, bigger evaluations and comparisons are a 400.
SYNC_WORK_LIMIT = int(env_str("SYNC_WORK_LIMIT", "400000"))
CATALOGUE_SNAPSHOT_MAX_AGE = float(env_str("CATALOGUE_SNAPSHOT_MAX_AGE", "300"))  # see planner/services/catalogue.py
ANON_SYNC_WORK_LIMIT = int(env_str("ANON_SYNC_WORK_LIMIT", "100000"))

REST_FRAMEWORK = {
    # JSON bodies are written ASCII-escaped: a lone surrogate a client sent (e.g. in an unknown key
    # that an error message names) is echoed as \udXXX instead of failing to encode (a 500)
    "UNICODE_JSON": False,
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.PlannerTokenAuthentication",  # first, so that unauthenticated requests get 401 with WWW-Authenticate
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.AnonThrottle", "api.throttles.UserThrottle"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.LimitedJSONParser",
        "api.parsers.CheckedFormParser",
        "api.parsers.CheckedMultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "api.schema.PlannerAutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.FastJSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Storage rack planner API",
    "DESCRIPTION": (
        "Plan Lustre-style parallel file system storage: browse the hardware catalogue, evaluate and compare "
        "designs (usable capacity in binary PiB/TiB, raw in decimal TB, throughput in GB/s = 10^9 B/s, price, rack fit), "
        "and save, version and share designs. Anonymous users may read the catalogue, evaluate and compare inline specs "
        "(rate-limited). Scripts authenticate with `Authorization: Token <key>` (create keys on the API tokens page or at "
        "/api/v1/tokens/). Errors are JSON: `detail`, or each offending field with a list of messages; 429 past the rate "
        "limit, 503 with Retry-After while the database is unavailable. Back to the app: /"
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "api.schema.add_error_responses"],
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RaidLevelEnum": "hardware_catalog.models.BrickTemplate.Raid",
        "SpecRaidLevelEnum": "planner.spec.RAID_LEVELS",
    },
}

# Celery: eager (in-process) when no broker is configured, as in `make run`.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL)
# Production (DEBUG off) without a broker would silently run exports and large solves inside the web
# process: refuse, unless the operator asks for that explicitly with CELERY_TASK_ALWAYS_EAGER=true.
if not DEBUG and not CELERY_BROKER_URL and not (env_str("CELERY_TASK_ALWAYS_EAGER") and CELERY_TASK_ALWAYS_EAGER):
    raise ImproperlyConfiguredEnv(
        "CELERY_BROKER_URL must be set when DEBUG is off (e.g. redis://redis:6379/0): exports and large solves run on a "
        "Celery worker. To run them inside the web process instead (a single-machine trial), set CELERY_TASK_ALWAYS_EAGER=true."
    )
# Two queues so that large anonymous solves never hold up exports: a worker serves both
# (`celery -A config worker -Q solve,exports`) or one each, on any machine with the same broker and database.
CELERY_SOLVE_QUEUE = env_str("CELERY_SOLVE_QUEUE", "solve")
CELERY_EXPORT_QUEUE = env_str("CELERY_EXPORT_QUEUE", "exports")
CELERY_TASK_DEFAULT_QUEUE = CELERY_EXPORT_QUEUE
CELERY_TASK_ROUTES = ("config.celery.route_task",)
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # with acks_late: a killed worker's task goes back to the queue
# With acks_late, a task whose worker vanished (machine lost, not just the child process: that one is
# re-queued at once) is handed to another worker after the visibility timeout. It must exceed the
# longest task time limit (the solve task's 900 s) or a slow task would be handed out twice; so it is
# derived from that limit plus a margin, not left at Redis's one hour.
LONGEST_TASK_TIME_LIMIT = 900
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(env_str("CELERY_VISIBILITY_TIMEOUT", str(LONGEST_TASK_TIME_LIMIT + 60)))}
# celery beat (`celery -A config beat`): the housekeeping in planner/services/jobs.py
JOB_RESEND_AFTER_SECONDS = int(env_str("JOB_RESEND_AFTER_SECONDS", "900"))
JOB_RETENTION_DAYS = int(env_str("JOB_RETENTION_DAYS", "30"))
ANON_JOB_RETENTION_HOURS = int(env_str("ANON_JOB_RETENTION_HOURS", "24"))
ANON_MAX_WAITING_SOLVES = int(env_str("ANON_MAX_WAITING_SOLVES", "100"))  # anonymous searches queued or running at once
CELERY_BEAT_SCHEDULE = {
    "resend-jobs": {"task": "planner.tasks.maintenance_resend_jobs", "schedule": 60.0},
    "fail-stuck-jobs": {"task": "planner.tasks.maintenance_fail_stuck_jobs", "schedule": 300.0},
    "delete-old-jobs": {"task": "planner.tasks.maintenance_delete_old_jobs", "schedule": 3600.0},
}
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
EXPORT_TEST_DELAY_SECONDS = float(env_str("EXPORT_TEST_DELAY_SECONDS", "0"))  # tests only: slows a render down
CELERY_TASK_EAGER_PROPAGATES = False  # eager retries need this; tasks record their own failures on their job
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_BROKER_CONNECTION_TIMEOUT = 2

# One cache for every process (gunicorn workers, machines): rate limits and sign-in attempts are counted
# there. Redis when REDIS_URL is set, else the broker's Redis (keys prefixed, so they never meet Celery's);
# local memory otherwise (one process: `make run`).
REDIS_URL = env_str("REDIS_URL") or (CELERY_BROKER_URL if (CELERY_BROKER_URL or "").startswith(("redis://", "rediss://")) else None)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "planner-cache"),
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "planner"}}

# The client address for rate limits: REMOTE_ADDR, unless proxies are declared. NUM_PROXIES: how many
# proxies stand in front (the client is that many places from the right of X-Forwarded-For);
# TRUSTED_PROXIES: their addresses or networks (the client is the rightmost address not among them).
# Without either, X-Forwarded-For is ignored: a client could otherwise pick any address it likes.
NUM_PROXIES = int(env_str("NUM_PROXIES", "0"))
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
# Sign-in attempts: after this many failures for a username, or from an address, within the window,
# the sign-in page answers 429 and asks to wait.
LOGIN_FAILURE_LIMIT = int(env_str("LOGIN_FAILURE_LIMIT", "10"))
LOGIN_FAILURE_WINDOW_SECONDS = int(env_str("LOGIN_FAILURE_WINDOW_SECONDS", "900"))

# Operations: metrics, request ids, logs, error reports (README, "Operations").
# django-prometheus times each request between its first and last middleware; the request id is set
# before anything else runs so that every log record of the request carries it.
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "config.logging.RequestIdMiddleware",
    *MIDDLEWARE,
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]
# Database metrics (queries, errors, connections): the same backends, wrapped by django-prometheus.
if DATABASES["default"]["ENGINE"] in ("django.db.backends.postgresql", "django.db.backends.sqlite3"):
    DATABASES["default"]["ENGINE"] = DATABASES["default"]["ENGINE"].replace("django.db.", "django_prometheus.db.", 1)
METRICS_TOKEN = env_str("METRICS_TOKEN", "")  # when set, /metrics needs `Authorization: Bearer <token>`

# Logs on stdout: JSON lines in production, plain text in development (config/logging.py).
LOG_FORMAT = (env_str("LOG_FORMAT") or ("text" if DEBUG else "json")).lower()
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfiguredEnv(f"LOG_FORMAT={LOG_FORMAT!r}: use json or text.")
LOG_LEVEL = (env_str("LOG_LEVEL") or ("WARNING" if LOG_FORMAT == "text" else "INFO")).upper()
LOGGING = logging_config(fmt=LOG_FORMAT, level=LOG_LEVEL)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # workers log through LOGGING too (JSON lines in production)

# Sentry, only when SENTRY_DSN is set (config/sentry.py).
init_sentry()
