# Sourced by up.sh and down.sh (from the checkout's root): the apps of scripts/apps.json and how to
# find the processes that hold their ports. Never matches processes by name alone: a process is
# ours only if it runs apps/<app>/src/main.ts from this checkout.

CHECKOUT=$(pwd -P)
PORT=${PORT:-8080}
# The node@24 devDependency ships Node 24; running it directly makes the recorded pid the app's own.
NODE_BIN=node_modules/.bin/node
[ -x "$NODE_BIN" ] || NODE_BIN=node

# Start order, from the one list.
read -r -a APPS <<<"$("$NODE_BIN" -p "require('./scripts/apps.json').apps.map((a) => a.name).join(' ')")"

# The port an app listens on: the gateway's PORT, a service's default health port (up.sh starts the
# services without HEALTH_PORT, so each one takes its default from apps.json).
app_port() {
  if [ "$1" = gateway ]; then
    echo "$PORT"
  else
    "$NODE_BIN" -p "require('./scripts/apps.json').apps.find((a) => a.name === process.argv[1]).healthPort" "$1"
  fi
}

# Pids listening on a TCP port (ss reports the owner of sockets of our own user).
port_pids() {
  ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u
}

# The command line of a pid, NULs as spaces (empty when the process is gone).
pid_cmdline() {
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true
}

# The checkout a Corridor app process runs from: the directory before apps/<app>/src/main.ts in
# its command line when that path is absolute, else its working directory. Empty when the process
# is not a Corridor app.
pid_checkout() {
  local cmdline
  cmdline=$(pid_cmdline "$1")
  local path
  path=$(grep -oE '[^ ]*apps/[a-z-]+/src/main\.ts' <<<"$cmdline" | head -n 1) || true
  [ -n "$path" ] || return 0
  case "$path" in
    /*) (cd "${path%/apps/*/src/main.ts}" 2>/dev/null && pwd -P) || true ;;
    *) readlink "/proc/$1/cwd" 2>/dev/null || true ;;
  esac
}

# True when pid runs apps/<app>/src/main.ts of this checkout (guards against a reused pid).
is_our_app() {
  local pid=$1 app=$2
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  grep -q "apps/$app/src/main\.ts" <<<"$(pid_cmdline "$pid")" || return 1
  [ "$(pid_checkout "$pid")" = "$CHECKOUT" ]
}

# The stack's own NATS (decision 0025): production's users and permissions, on a port of its own,
# because the machine's server on 4222 has no authentication and is shared.
NATS_PORT=${CORRIDOR_NATS_PORT:-4223}
NATS_SERVER_BIN=${NATS_SERVER_BIN:-/usr/sbin/nats-server}

# True when pid is the nats-server up.sh started from this checkout (its configuration is ours).
is_our_nats() {
  local pid=$1
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  grep -q -- "-c $CHECKOUT/var/nats/nats-server.conf" <<<"$(pid_cmdline "$pid")"
}

# One bus user's password from var/nats/passwords.env (written by npm run nats:config).
nats_password() {
  grep -E "^NATS_PASSWORD_$(tr '[:lower:]' '[:upper:]' <<<"$1")=" var/nats/passwords.env | cut -d= -f2-
}
