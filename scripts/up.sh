#!/usr/bin/env bash
# Brings Corridor up on this machine: dependencies, infrastructure, migrations, every app in the
# background, then a sandbox platform whose credentials and first curl are printed.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8080}
HEALTH_WAIT_SECONDS=60
APPS=(platform customers accounts payments webhooks gateway)
# The node@24 devDependency ships Node 24; running it directly makes the recorded pid the app's own.
NODE_BIN=node_modules/.bin/node

if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  npm install --no-audit --no-fund
fi
bash scripts/ensure-infra.sh
npm run migrate

bash scripts/down.sh
mkdir -p var/log var/run

for app in "${APPS[@]}"; do
  # Each service picks its own default HEALTH_PORT; one exported value would make them collide.
  env -u HEALTH_PORT PORT="$PORT" nohup "$NODE_BIN" -r @swc-node/register "apps/$app/src/main.ts" \
    >"var/log/$app.log" 2>&1 &
  echo $! >"var/run/$app.pid"
  echo "up: started $app (pid $!, log var/log/$app.log)"
done

waited=0
until [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$PORT/health")" = 200 ]; do
  for app in "${APPS[@]}"; do
    if ! kill -0 "$(cat "var/run/$app.pid")" 2>/dev/null; then
      echo "up: $app exited during start; the end of var/log/$app.log:" >&2
      tail -n 30 "var/log/$app.log" >&2
      exit 1
    fi
  done
  if [ "$waited" -ge "$HEALTH_WAIT_SECONDS" ]; then
    echo "up: the gateway did not report healthy within ${HEALTH_WAIT_SECONDS}s; see var/log/*.log" >&2
    exit 1
  fi
  sleep 1
  waited=$((waited + 1))
done
echo "up: gateway healthy on http://127.0.0.1:$PORT"

credentials=$(PORT="$PORT" npm run --silent bootstrap:platform -- --name "Sandbox platform" --environment SANDBOX --json)
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
