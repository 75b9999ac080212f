#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer on loopback, starting any that is
# down with the same commands the test fixtures print, and creates the `corridor` database.
set -euo pipefail

WAIT_SECONDS=30
PG_START='pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'
REDIS_START='redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log'
NATS_START='start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log'

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

postgres_up() {
  if command -v pg_isready >/dev/null; then pg_isready -q -h 127.0.0.1 -p 5432; else port_open 5432; fi
}

redis_up() {
  if command -v redis-cli >/dev/null; then
    [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]
  else
    port_open 6379
  fi
}

nats_up() {
  port_open 4222
}

# ensure NAME PROBE START_COMMAND: start the service if its probe fails, then wait for it.
ensure() {
  local name=$1 probe=$2 start=$3
  if "$probe"; then
    echo "ensure-infra: $name is up"
    return 0
  fi
  echo "ensure-infra: $name is down; starting it: $start"
  # The directories may be missing on a fresh machine; creating them is harmless when present.
  case "$name" in
    Redis) mkdir -p /var/lib/redis /var/log/redis ;;
    NATS) mkdir -p /var/lib/nats-server ;;
  esac
  bash -c "$start" || echo "ensure-infra: the start command for $name failed; waiting anyway" >&2
  local waited=0
  until "$probe"; do
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
      echo "ensure-infra: $name is still down after ${WAIT_SECONDS}s. Start it by hand with: $start" >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "ensure-infra: $name started"
}

ensure PostgreSQL postgres_up "$PG_START"
ensure Redis redis_up "$REDIS_START"
ensure NATS nats_up "$NATS_START"

# A NATS server that another tool started without -js would make every event consumer fail later,
# so say so now when the monitoring port can tell (it is optional; no answer proves nothing).
if command -v curl >/dev/null && curl -fsS -m 2 http://127.0.0.1:8222/jsz >/dev/null 2>&1; then
  if curl -fsS -m 2 http://127.0.0.1:8222/jsz | grep -q '"disabled": *true'; then
    echo "ensure-infra: NATS runs without JetStream; restart it with: $NATS_START" >&2
    exit 1
  fi
fi

# The console's end-to-end test drives Debian's chromium (playwright-core downloads no browser).
# CI runs as root on a Debian machine, so a missing browser is installed rather than failing late.
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "ensure-infra: chromium is missing; installing it: apt-get install -y chromium"
    if ! (apt-get install -y chromium >/dev/null || (apt-get update >/dev/null && apt-get install -y chromium >/dev/null)); then
      echo "ensure-infra: installing chromium failed; the console e2e (tests/console.e2e.spec.ts) needs /usr/bin/chromium" >&2
      exit 1
    fi
    echo "ensure-infra: chromium installed ($(chromium --version 2>/dev/null | head -1))"
  else
    echo "ensure-infra: chromium is missing and this is not root on Debian; install it (apt-get install -y chromium) for tests/console.e2e.spec.ts" >&2
    exit 1
  fi
else
  echo "ensure-infra: chromium is present"
fi

if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'corridor'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE corridor'
  echo "ensure-infra: created database corridor"
fi
echo "ensure-infra: PostgreSQL, Redis and NATS are ready"
