#!/usr/bin/env bash
# A real Nautobot for the live DCIM tests (tests/dcim/test_nautobot_live.py).
#
#   .ci/nautobot.sh          install (or reuse) Nautobot, give it a fresh database, start it, make a token
#   .ci/nautobot.sh stop     stop the server this script started
#
# Nautobot (pinned below) goes into its own virtual environment outside the checkout
# ($NAUTOBOT_CI_HOME, default ~/.cache/nautobot-ci); a venv of the same version is reused.
# Its database is `nautobot_ci` on the machine's PostgreSQL (127.0.0.1:5432, user postgres, trust
# auth), made afresh on each run; the migrated empty schema is kept as the template database
# `nautobot_ci_tpl_<version>` so later runs copy it instead of migrating again (from nothing, the
# migrations run). Its cache and Celery broker use Redis DB 11 (127.0.0.1:6379); the cache's keys
# (prefix nautobot-ci:) are deleted at start.
# The server (`nautobot-server runserver`, no reloader) listens on 127.0.0.1:8081 and logs to
# $NAUTOBOT_CI_HOME/server.log. When /api/status/ answers the new token, the script writes
#   export NAUTOBOT_URL=... NAUTOBOT_TOKEN=...
# to $NAUTOBOT_CI_HOME/nautobot.env (for `source`) with NAUTOBOT_USERNAME and NAUTOBOT_PASSWORD (the web
# UI's sign-in, for its YAML device-type import), and prints them. Throwaway credentials, loopback only.
set -euo pipefail

NAUTOBOT_VERSION=3.2.7
HOME_DIR="${NAUTOBOT_CI_HOME:-${HOME:-/root}/.cache/nautobot-ci}"
VENV="$HOME_DIR/venv-$NAUTOBOT_VERSION"
ROOT="$HOME_DIR/root-$NAUTOBOT_VERSION"
PORT="${NAUTOBOT_CI_PORT:-8081}"
URL="http://127.0.0.1:$PORT"
PGHOST=127.0.0.1
PGPORT=5432
DB=nautobot_ci
TEMPLATE="nautobot_ci_tpl_${NAUTOBOT_VERSION//./_}"
REDIS_DB=11
PIDFILE="$HOME_DIR/server.pid"
LOG="$HOME_DIR/server.log"
ENVFILE="$HOME_DIR/nautobot.env"

mkdir -p "$HOME_DIR"

stop_server() {
  if [[ -f "$PIDFILE" ]]; then
    local pid
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
      echo "nautobot: server $pid stopped"
    fi
    rm -f "$PIDFILE"
  fi
}

if [[ "${1:-start}" == "stop" ]]; then
  stop_server
  exit 0
fi

step_start=$SECONDS
step() {  # step NAME: prints how long the previous step took
  local now=$SECONDS
  [[ -n "${STEP_NAME:-}" ]] && echo "nautobot: ${STEP_NAME} took $((now - step_start)) s"
  STEP_NAME="$1"
  step_start=$now
  echo "nautobot: $1"
}

# -- 1. Nautobot in its own venv (reused when the pinned version is already installed)
step "venv $VENV"
if [[ ! -f "$VENV/.installed-$NAUTOBOT_VERSION" ]]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # (pip's warnings about absent local index paths are dropped; real errors still show and fail the step)
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "nautobot==$NAUTOBOT_VERSION" 2> >(grep -v "is ignored: it is neither" >&2)
  touch "$VENV/.installed-$NAUTOBOT_VERSION"
fi
"$VENV/bin/nautobot-server" --version 2>/dev/null | grep -q "Nautobot version: $NAUTOBOT_VERSION"

# -- 2. Configuration: nautobot-server init, then our settings (environment below, plus Redis DB 11)
step "configuration $ROOT/nautobot_config.py"
mkdir -p "$ROOT"
rm -f "$ROOT/nautobot_config.py"
NAUTOBOT_ROOT="$ROOT" "$VENV/bin/nautobot-server" init --disable-installation-metrics "$ROOT/nautobot_config.py" >/dev/null 2>&1 \
  || NAUTOBOT_ROOT="$ROOT" "$VENV/bin/nautobot-server" init "$ROOT/nautobot_config.py" >/dev/null
cat >>"$ROOT/nautobot_config.py" <<EOF

# --- added by .ci/nautobot.sh: Redis DB $REDIS_DB for the cache and the Celery broker (DBs 12-15 are
# the planner's tests'); nothing else differs from Nautobot's defaults read from the environment.
CACHES["default"]["LOCATION"] = "redis://127.0.0.1:6379/$REDIS_DB"
CACHES["default"]["KEY_PREFIX"] = "nautobot-ci"
CELERY_BROKER_URL = "redis://127.0.0.1:6379/$REDIS_DB"
INSTALLATION_METRICS_ENABLED = False
# a throwaway database: no need to wait for each commit to reach the disk (faster migrations)
DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"
EOF

export NAUTOBOT_ROOT="$ROOT"
export NAUTOBOT_CONFIG="$ROOT/nautobot_config.py"
export NAUTOBOT_DB_HOST="$PGHOST" NAUTOBOT_DB_PORT="$PGPORT" NAUTOBOT_DB_USER=postgres NAUTOBOT_DB_PASSWORD="" NAUTOBOT_DB_NAME="$DB"
export NAUTOBOT_DB_ENGINE=django.db.backends.postgresql
export NAUTOBOT_REDIS_HOST=127.0.0.1 NAUTOBOT_REDIS_PORT=6379
export NAUTOBOT_ALLOWED_HOSTS="127.0.0.1 localhost"
export NAUTOBOT_SECRET_KEY="ci-only-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export NAUTOBOT_INSTALLATION_METRICS_ENABLED=false
export NAUTOBOT_LOG_LEVEL=WARNING
NB=("$VENV/bin/nautobot-server" --config "$NAUTOBOT_CONFIG")

# -- 3. Stop a server left from an earlier run; fresh database (copied from the migrated template when there is one)
step "database $DB"
stop_server
if curl -s -o /dev/null --max-time 2 "$URL/"; then
  echo "nautobot: something else already answers on $URL; stop it first" >&2
  exit 1
fi
# only Nautobot's own cache keys go (tests/operations/test_metrics.py uses two keys of DB 11 too): a cache
# left from an earlier database would name objects that the fresh one does not have
redis-cli -h 127.0.0.1 -p 6379 -n "$REDIS_DB" eval \
  "for _, key in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', key) end return 0" 0 'nautobot-ci:*' >/dev/null
psql_() { psql -q -v ON_ERROR_STOP=1 -h "$PGHOST" -p "$PGPORT" -U postgres -d postgres "$@"; }
psql_ -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
if [[ "$(psql -tA -h "$PGHOST" -p "$PGPORT" -U postgres -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$TEMPLATE'")" == "1" ]]; then
  psql_ -c "CREATE DATABASE $DB TEMPLATE $TEMPLATE"
  step "migrations (check only: the template is migrated)"
  "${NB[@]}" migrate --noinput >"$HOME_DIR/migrate.log" 2>&1 || { tail -40 "$HOME_DIR/migrate.log" >&2; exit 1; }
else
  psql_ -c "CREATE DATABASE $DB"
  step "migrations (from nothing)"
  "${NB[@]}" migrate --noinput >"$HOME_DIR/migrate.log" 2>&1 || { tail -40 "$HOME_DIR/migrate.log" >&2; exit 1; }
  psql_ -c "CREATE DATABASE $TEMPLATE TEMPLATE $DB"
fi

# -- 4. A superuser and a fresh API token
step "superuser and token"
TOKEN="$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')"
PASSWORD="ci-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"  # for the web UI's YAML device-type import
"${NB[@]}" shell --interface python -c "
from django.contrib.auth import get_user_model
from nautobot.users.models import Token
user, _ = get_user_model().objects.get_or_create(username='ci-admin', defaults={'is_superuser': True, 'is_staff': True})
user.is_superuser = user.is_staff = True
user.set_password('$PASSWORD')
user.save()
Token.objects.create(user=user, key='$TOKEN', description='planner CI live tests')
" >/dev/null

# -- 5. The server, in the background
step "server on $URL"
cd "$HOME_DIR"
nohup "${NB[@]}" runserver "127.0.0.1:$PORT" --noreload --insecure >"$LOG" 2>&1 &
echo $! >"$PIDFILE"
ok=""
for _ in $(seq 1 180); do
  if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "nautobot: the server exited; its log:" >&2
    tail -40 "$LOG" >&2
    exit 1
  fi
  if curl -sf --max-time 5 -H "Authorization: Token $TOKEN" -H "Accept: application/json" "$URL/api/status/" >"$HOME_DIR/status.json" 2>/dev/null; then
    ok=1
    break
  fi
  sleep 1
done
if [[ -z "$ok" ]]; then
  echo "nautobot: /api/status/ did not answer within 180 s; the server log:" >&2
  tail -40 "$LOG" >&2
  exit 1
fi
step "done"
grep -o '"nautobot-version": *"[^"]*"' "$HOME_DIR/status.json" || true
printf 'export NAUTOBOT_URL=%s\nexport NAUTOBOT_TOKEN=%s\nexport NAUTOBOT_USERNAME=ci-admin\nexport NAUTOBOT_PASSWORD=%s\n' "$URL" "$TOKEN" "$PASSWORD" >"$ENVFILE"
cat "$ENVFILE"
