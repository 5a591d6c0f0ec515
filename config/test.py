"""Test settings: the base settings with fast password hashing and a fixed key.

DATABASE_URL and CELERY_BROKER_URL still come from the environment, so CI runs the suite on
PostgreSQL and Redis while a developer's `make test` uses SQLite and eager Celery.
"""

import os
import tempfile

os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
# Tests run tasks in-process: say so explicitly, as production settings refuse DEBUG off without a broker
# otherwise (subprocesses started by tests inherit this unless they set their own).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

from .base import *  # noqa: E402,F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
API_ANON_RATE = "100000/min"  # a test that checks the limit sets its own
API_USER_RATE = "100000/min"
# Each test process counts in its own memory (CI's broker is Redis, which base.py would otherwise pick);
# a test that needs the shared cache sets CACHES itself.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "planner-test"}}

# Tasks run in-process in tests (also in CI, where a broker is set); the worker integration tests
# switch this off for themselves and start real workers.
CELERY_TASK_ALWAYS_EAGER = True
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or Path(tempfile.gettempdir()) / "planner-test-media")  # noqa: F405
