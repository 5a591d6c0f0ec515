"""gunicorn settings, read from the environment: `gunicorn -c config/gunicorn.conf.py config.wsgi:application`.

PORT (8000), WEB_CONCURRENCY (workers, default 2 x CPUs + 1 up to 8), WEB_THREADS (threads per worker, 4), WEB_TIMEOUT (seconds a request
may run before its worker is restarted, 60), WEB_GRACEFUL_TIMEOUT (seconds to finish requests on
restart, 30), WEB_KEEPALIVE (5), TRUSTED_PROXIES (addresses or networks of the proxies in front,
comma-separated; their X-Forwarded-Proto is believed). Request lines, header counts and header sizes
are bounded so that a client cannot hold a worker with an oversized request. Access log to stdout.
"""

import ipaddress
import multiprocessing
import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


bind = f"0.0.0.0:{_int('PORT', 8000)}"
workers = _int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 8))
# Threads per worker: a request that computes (an inline solve, a large evaluation) holds one thread,
# not the whole worker, so health checks and light requests are still answered (tests/production).
worker_class = "gthread"
threads = _int("WEB_THREADS", 4)
timeout = _int("WEB_TIMEOUT", 60)
graceful_timeout = _int("WEB_GRACEFUL_TIMEOUT", 30)
keepalive = _int("WEB_KEEPALIVE", 5)
max_requests = _int("WEB_MAX_REQUESTS", 2000)  # recycle workers now and then (bounded memory)
max_requests_jitter = _int("WEB_MAX_REQUESTS_JITTER", 200)

# Oversized requests are refused by gunicorn itself (400/431) before Django sees them.
limit_request_line = _int("WEB_LIMIT_REQUEST_LINE", 8190)  # bytes in "GET /path?query HTTP/1.1"
limit_request_fields = _int("WEB_LIMIT_REQUEST_FIELDS", 100)  # number of headers
limit_request_field_size = _int("WEB_LIMIT_REQUEST_FIELD_SIZE", 8190)  # bytes per header


# X-Forwarded-Proto and friends are believed only from these proxies (default: this machine only).
# gunicorn 23 takes single addresses here, not networks: a network in TRUSTED_PROXIES is left out
# (the application itself still honours it for client addresses, and HTTPS=true for the scheme).
def _addresses(entries):
    kept = []
    for entry in entries:
        try:
            kept.append(str(ipaddress.ip_address(entry)))
        except ValueError:
            print(f"gunicorn.conf: TRUSTED_PROXIES entry {entry!r} is not a single address; not used for forwarded_allow_ips")
    return kept


_trusted = _addresses(part.strip() for part in os.environ.get("TRUSTED_PROXIES", "").split(",") if part.strip())
forwarded_allow_ips = ",".join(_trusted) if _trusted else "127.0.0.1,::1"

accesslog = "-"  # stdout
errorlog = "-"  # stderr
loglevel = os.environ.get("WEB_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" pid=%(p)s'
if os.environ.get("LOG_FORMAT", "json" if os.environ.get("DEBUG", "").lower() not in ("1", "true", "yes") else "text") == "json":
    import json

    from gunicorn.glogging import Logger

    class JsonAccessLogger(Logger):
        """Access lines as JSON objects (like the application's own logs, config/logging.py), every value
        escaped by json.dumps so a crafted user agent or request line cannot forge fields."""

        def access(self, resp, req, environ, request_time):
            if not self.cfg.accesslog:
                return
            atoms = self.atoms(resp, req, environ, request_time)
            record = {
                "logger": "gunicorn.access",
                "remote": atoms.get("h"),
                "request": atoms.get("r"),
                "status": atoms.get("s"),
                "bytes": atoms.get("b"),
                "duration_ms": round(request_time.total_seconds() * 1000, 1),
                "user_agent": atoms.get("a"),
                "request_id": atoms.get("{x-request-id}o"),
                "pid": atoms.get("p"),
            }
            self.access_log.info(json.dumps(record))

    logger_class = JsonAccessLogger
