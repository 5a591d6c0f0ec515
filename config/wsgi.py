"""WSGI entry point for gunicorn and Django's development server."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.base")
application = get_wsgi_application()
