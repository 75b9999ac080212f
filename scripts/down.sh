#!/usr/bin/env bash
# Stops every app of scripts/apps.json that `npm run up` started from this checkout: the pids it
# recorded in var/run, and any process of this checkout still holding an app's port (a pid file
# lost or left stale by an earlier run). Never by name, so other node processes — and Corridor
# processes of other checkouts — are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apps.sh

# Above the apps' own SHUTDOWN_TIMEOUT_MS (10 s by default), after which they exit by themselves.
STOP_WAIT_SECONDS=${STOP_WAIT_SECONDS:-15}

# Pids of one app to stop: its recorded pid if it still runs that app of this checkout (a reused
# pid is someone else's), plus whatever process of this checkout runs the app on its port.
app_pids() {
  local app=$1 pid_file="var/run/$1.pid" pid
  {
    if [ -f "$pid_file" ]; then
      pid=$(cat "$pid_file")
      if is_our_app "$pid" "$app"; then echo "$pid"; fi
    fi
    for pid in $(port_pids "$(app_port "$app")"); do
      if is_our_app "$pid" "$app"; then echo "$pid"; fi
    done
  } | sort -u
}

stop_app() {
  local app=$1 pids
  pids=$(app_pids "$app")
  for pid in $pids; do
    # SIGTERM lets Nest's shutdown hooks drain NATS and close pools; SIGKILL only if that stalls.
    kill -TERM "$pid" 2>/dev/null || true
  done
  local waited=0
  for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$STOP_WAIT_SECONDS" ]; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "down: $app (pid $pid) ignored SIGTERM for ${STOP_WAIT_SECONDS}s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    echo "down: stopped $app (pid $pid)"
  done
  rm -f "var/run/$app.pid"
}

# Every app at once, so the whole stop is bounded by STOP_WAIT_SECONDS, not six times it.
for app in "${APPS[@]}"; do
  stop_app "$app" &
done
wait

# The stack's nats-server last: the apps drain their connections to it while they stop.
nats_pid=$(cat var/run/nats.pid 2>/dev/null || true)
for pid in $nats_pid $(port_pids "$NATS_PORT"); do
  if is_our_nats "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    echo "down: stopped nats-server (pid $pid)"
  fi
done
rm -f var/run/nats.pid
