#!/usr/bin/env bash
# Stops the apps `npm run up` started, by the pids it recorded in var/run (never by name, so other
# node processes on the machine are left alone).
set -euo pipefail
cd "$(dirname "$0")/.."

STOP_WAIT_SECONDS=15

stop_app() {
  local app=$1 pid_file="var/run/$1.pid"
  [ -f "$pid_file" ] || return 0
  local pid
  pid=$(cat "$pid_file")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # SIGTERM lets Nest's shutdown hooks drain NATS and close pools; SIGKILL only if that stalls.
    kill -TERM "$pid"
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$STOP_WAIT_SECONDS" ]; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "down: $app (pid $pid) ignored SIGTERM for ${STOP_WAIT_SECONDS}s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    echo "down: stopped $app (pid $pid)"
  fi
  rm -f "$pid_file"
}

for app in gateway customers platform; do
  stop_app "$app"
done
