"""Settings for every environment, read from the environment (see README for the variables).

Development (`make run`): SQLite file, DEBUG on, Celery eager. CI and production: set
DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis), DEBUG off with a real SECRET_KEY.
"""

from pathlib import Path

import dj_database_url
from django.core.management.utils import get_random_secret_key

from .env import ImproperlyConfiguredEnv, env_bool, env_list, env_str

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
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/health/?$"]  # load balancers probe health over plain HTTP

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
    "hardware_catalog",
    "planner",
    "api",
    "frontend",
]

MIDDLEWARE = [
    "config.middleware.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
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
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
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
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Storage rack planner API",
    "DESCRIPTION": (
        "Plan Lustre-style parallel file system storage: browse the hardware catalogue, evaluate and compare "
        "designs (usable capacity in binary PiB/TiB, raw in decimal TB, throughput in GB/s = 10^9 B/s, price, rack fit), "
        "and save, version and share designs. Anonymous users may read the catalogue, evaluate and compare inline specs "
        "(rate-limited). Scripts authenticate with `Authorization: Token <key>` (create keys on the API tokens page or at "
        "/api/v1/tokens/). Errors are JSON: `detail`, or each offending field with a list of messages. Back to the app: /"
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
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "planner")
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # with acks_late: a killed worker's task goes back to the queue
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(env_str("CELERY_VISIBILITY_TIMEOUT", "3600"))}
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
EXPORT_TEST_DELAY_SECONDS = float(env_str("EXPORT_TEST_DELAY_SECONDS", "0"))  # tests only: slows a render down
CELERY_TASK_EAGER_PROPAGATES = False  # eager retries need this; tasks record their own failures on their job
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_BROKER_CONNECTION_TIMEOUT = 2

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
