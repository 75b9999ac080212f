#!/usr/bin/env bash
# Brings Corridor up on this machine: dependencies, infrastructure, migrations, every app of
# scripts/apps.json in the background, then a sandbox platform whose credentials and first curl
# are printed.
set -euo pipefail
cd "$(dirname "$0")/.."

HEALTH_WAIT_SECONDS=60

if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  npm install --no-audit --no-fund
fi
source scripts/apps.sh
bash scripts/ensure-infra.sh
npm run migrate

# Whatever this checkout left running (pid files, or processes still on the ports) stops first.
bash scripts/down.sh

# A port still taken now belongs to another checkout or another program: starting anyway would
# leave the new app dead on its port while the old one keeps answering health checks.
refusals=0
for app in "${APPS[@]}"; do
  port=$(app_port "$app")
  for pid in $(port_pids "$port"); do
    refusals=$((refusals + 1))
    holder=$(pid_checkout "$pid")
    echo "up: port $port ($app) is held by pid $pid: $(pid_cmdline "$pid")" >&2
    if [ -n "$holder" ]; then
      echo "    a Corridor app of the checkout $holder; stop it with: (cd $holder && npm run down)" >&2
    else
      echo "    not a Corridor app; stop it (kill $pid) or free port $port" >&2
    fi
  done
  # ss shows the pid of our own user's sockets only; a port held by another user has no pid here.
  if [ -z "$(port_pids "$port")" ] && [ -n "$(ss -ltnH "sport = :$port" 2>/dev/null)" ]; then
    refusals=$((refusals + 1))
    echo "up: port $port ($app) is held by a process of another user; free it first" >&2
  fi
done
for pid in $(port_pids "$NATS_PORT"); do
  refusals=$((refusals + 1))
  echo "up: port $NATS_PORT (the stack's NATS) is held by pid $pid: $(pid_cmdline "$pid"); free it or set CORRIDOR_NATS_PORT" >&2
done
if [ "$refusals" -gt 0 ]; then
  echo "up: refusing to start while these ports are taken; run npm run down in the checkout named above, then npm run up" >&2
  exit 1
fi

# A development stack's webhook receivers run on this machine (loopback), which no deployment
# reaches without the opt-in; docker compose and deploy/k8s leave it off. Set
# WEBHOOK_ALLOW_PRIVATE_TARGETS=false before npm run up to run the stack as production does.
export WEBHOOK_ALLOW_PRIVATE_TARGETS=${WEBHOOK_ALLOW_PRIVATE_TARGETS:-true}
if [ "$WEBHOOK_ALLOW_PRIVATE_TARGETS" = true ]; then
  cat >&2 <<'WARNING'
up: ************************************************************************************
up: WEBHOOK_ALLOW_PRIVATE_TARGETS=true: this development stack lets every platform's
up: webhooks reach private, loopback, link-local and cloud metadata addresses, so a local
up: receiver works. Never run a shared or production deployment like this: a tenant could
up: read internal services through its webhook endpoint.
up: ************************************************************************************
WARNING
fi

mkdir -p var/log var/run var/nats
# The configuration from libs/messaging/src/bus-permissions.ts, and a random password per bus user
# kept in var/nats/passwords.env. Only the server sees them all; each app gets its own.
"$NODE_BIN" -r @swc-node/register scripts/nats-config.ts --prefix "${CORRIDOR_SUBJECT_PREFIX:-corridor}" \
  --port "$NATS_PORT" --store-dir "$CHECKOUT/var/nats/jetstream" --out var/nats/nats-server.conf --passwords var/nats/passwords.env >/dev/null
env $(grep -E '^NATS_PASSWORD_[A-Z]+=' var/nats/passwords.env | xargs) nohup "$NATS_SERVER_BIN" \
  -c "$CHECKOUT/var/nats/nats-server.conf" -a 127.0.0.1 >var/log/nats.log 2>&1 &
echo $! >var/run/nats.pid
for _ in $(seq 1 50); do
  [ -n "$(port_pids "$NATS_PORT")" ] && break
  sleep 0.2
done
if [ -z "$(port_pids "$NATS_PORT")" ]; then
  echo "up: the stack's nats-server did not start on port $NATS_PORT; the end of var/log/nats.log:" >&2
  tail -n 20 var/log/nats.log >&2
  exit 1
fi
echo "up: started nats-server (pid $(cat var/run/nats.pid), port $NATS_PORT, one user per app)"
export NATS_URL="nats://127.0.0.1:$NATS_PORT"

for app in "${APPS[@]}"; do
  # Each service picks its own default HEALTH_PORT; one exported value would make them collide.
  # The absolute path names this checkout in the command line, which is how down.sh recognises it.
  env -u HEALTH_PORT PORT="$PORT" NATS_USER="$app" NATS_PASSWORD="$(nats_password "$app")" nohup "$NODE_BIN" -r @swc-node/register "$CHECKOUT/apps/$app/src/main.ts" \
    >"var/log/$app.log" 2>&1 &
  echo $! >"var/run/$app.pid"
  echo "up: started $app (pid $!, log var/log/$app.log)"
done

# Healthy means: the recorded pid is alive, it is the process listening on the app's port (not a
# leftover), and the port answers readiness. The gateway's /health/ready also pings every service.
app_healthy() {
  local app=$1 port pid
  port=$(app_port "$app")
  pid=$(cat "var/run/$app.pid")
  port_pids "$port" | grep -qx "$pid" || return 1
  [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$port/health/ready")" = 200 ]
}

waited=0
pending=("${APPS[@]}")
while [ "${#pending[@]}" -gt 0 ]; do
  still=()
  for app in "${pending[@]}"; do
    if ! kill -0 "$(cat "var/run/$app.pid")" 2>/dev/null; then
      echo "up: $app exited during start; the end of var/log/$app.log:" >&2
      tail -n 30 "var/log/$app.log" >&2
      echo "up: the other apps are left running; npm run down stops them" >&2
      exit 1
    fi
    if app_healthy "$app"; then
      echo "up: $app healthy (pid $(cat "var/run/$app.pid"), port $(app_port "$app"))"
    else
      still+=("$app")
    fi
  done
  pending=("${still[@]+"${still[@]}"}")
  [ "${#pending[@]}" -eq 0 ] && break
  if [ "$waited" -ge "$HEALTH_WAIT_SECONDS" ]; then
    for app in "${pending[@]}"; do
      echo "up: $app did not report ready on port $(app_port "$app") within ${HEALTH_WAIT_SECONDS}s:" >&2
      curl -s -m 2 "http://127.0.0.1:$(app_port "$app")/health" >&2 || true
      echo >&2
    done
    echo "up: see var/log/<app>.log; npm run down stops what did start" >&2
    exit 1
  fi
  sleep 1
  waited=$((waited + 1))
done
echo "up: every app healthy; gateway on http://127.0.0.1:$PORT"

credentials=$(PORT="$PORT" NATS_USER=operator NATS_PASSWORD="$(nats_password operator)" npm run --silent bootstrap:platform -- --name "Sandbox platform" --environment SANDBOX --json)
"$NODE_BIN" -e '
  const reply = JSON.parse(process.argv[1]);
  const { clientId, clientSecret } = reply.token;
  console.log(`
Sandbox platform ${reply.platformId}
  clientId      ${clientId}
  clientSecret  ${clientSecret}   (shown once; only its hash is stored)

Try it:
  curl -u ${clientId}:${clientSecret} http://127.0.0.1:${process.argv[2]}/2025-10-13/customers

Stop everything with: npm run down`);
' "$credentials" "$PORT"
if [ "$WEBHOOK_ALLOW_PRIVATE_TARGETS" = true ]; then
  echo "up: reminder: WEBHOOK_ALLOW_PRIVATE_TARGETS=true, webhooks may reach private and loopback addresses (development only)" >&2
fi
