#!/bin/bash
# A local LAVA lab from Debian's own packages, without systemd: the recipe
# docs/lava.md describes, as one script the slow tests and users run.
#
#   scripts/lava-lab.sh install            install the packages only (postgres first), leave nothing running
#   scripts/lava-lab.sh up [--devices N]   install (once), start, register N qemu devices (default 1)
#   scripts/lava-lab.sh down               stop every process `up` started, retire the devices
#
# Run as root on Debian 12. State (pids, logs, the admin token, the URL)
# lives in $HINTLAB_LAVA_DIR (default /tmp/hintlab-lava); `up` prints the
# `--target` to give hintlab and writes it to $HINTLAB_LAVA_DIR/target.
# Ports: $HINTLAB_LAVA_PORT (default 18080, the REST API and web UI) and the
# next one for lava-publisher.
set -euo pipefail

DIR=${HINTLAB_LAVA_DIR:-/tmp/hintlab-lava}
PORT=${HINTLAB_LAVA_PORT:-18080}
PUB_PORT=$((PORT + 1))
WORKER=hintlab-worker
PY=/usr/bin/python3 # Django lives under the system python, whatever python3 is first on PATH
PG=15
DEVTYPES=/etc/lava-server/dispatcher-config/devices

say() { printf 'lava-lab: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
manage() { "$PY" /usr/bin/lava-server manage "$@"; }

install_packages() {
  if dpkg-query -W -f='${Status}' lava-server 2>/dev/null | grep -q 'ok installed'; then return; fi
  say "installing postgresql, then LAVA (lava-server lava-dispatcher lava-dispatcher-host lava-common lavacli)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends postgresql >&2
  # lava-server's postinst creates its database only when postgres is up
  local started=
  if ! pg_online; then pg_ctlcluster "$PG" main start; started=1; fi
  apt-get install -y --no-install-recommends lava-server lava-dispatcher lava-dispatcher-host lava-common lavacli >&2
  if [ -n "$started" ] && [ -z "${1:-}" ]; then pg_ctlcluster "$PG" main stop; fi
}

pg_online() {
  pg_lsclusters -h 2>/dev/null | awk -v v="$PG" '$1 == v && $2 == "main" {print $4}' | grep -q online
}

# start NAME CMD...: CMD in its own session (so `down` ends its whole group), pid in $DIR/NAME.pid
start() {
  local name=$1; shift
  setsid "$@" >"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

wait_http() {
  for _ in $(seq 1 120); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/api/v0.2/" 2>/dev/null; then return; fi
    sleep 0.5
  done
  die "the LAVA server did not answer on http://127.0.0.1:$PORT/ within 60 s; see $DIR/gunicorn.log"
}

admin_token() {
  if ! manage users details admin >/dev/null 2>&1; then
    manage createsuperuser --noinput --username admin --email admin@localhost >/dev/null
  fi
  manage tokens add --user admin --description hintlab
}

add_devices() {
  local n=$1
  manage device-types add qemu >/dev/null 2>&1 || true
  manage workers add "$WORKER" >/dev/null 2>&1 || true
  for i in $(seq 1 "$n"); do
    local dev
    dev=$(printf 'qemu%02d' "$i")
    # no_kvm: this machine has no /dev/kvm; the jobs say whatever else qemu needs (icount, memory) in their context
    printf "{%% extends 'qemu.jinja2' %%}\n{%% set no_kvm = True %%}\n{%% set arch = 'amd64' %%}\n" >"$DEVTYPES/$dev.jinja2"
    manage devices add --device-type qemu --worker "$WORKER" "$dev" >/dev/null 2>&1 || manage devices update --health GOOD "$dev" >/dev/null
    manage devices update --health GOOD "$dev" >/dev/null
  done
}

up() {
  local devices=1
  while [ $# -gt 0 ]; do
    case $1 in
      --devices) devices=$2; shift 2 ;;
      *) die "unknown argument '$1' (use: up [--devices N] | down)" ;;
    esac
  done
  [ "$(id -u)" = 0 ] || die "run as root (LAVA's daemons and apt-get need it)"
  local t0=$SECONDS
  mkdir -p "$DIR"
  [ -e "$DIR/gunicorn.pid" ] && die "a lab is already up (state in $DIR); run: $0 down"
  # postgres stays as it was found: `down` stops it only if `up` started it
  if ! pg_online; then
    install_packages keep-postgres
    pg_online || pg_ctlcluster "$PG" main start
    touch "$DIR/postgres-started"
  fi
  install_packages
  manage migrate --noinput >/dev/null
  start gunicorn /usr/bin/gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver --worker-class eventlet --workers 2 --bind "127.0.0.1:$PORT"
  start scheduler "$PY" /usr/bin/lava-server manage lava-scheduler
  start publisher "$PY" /usr/bin/lava-server manage lava-publisher --host 127.0.0.1 --port "$PUB_PORT"
  wait_http
  add_devices "$devices"
  local wtoken
  wtoken=$(manage workers details "$WORKER" | sed -n 's/^token *: //p')
  start worker /usr/bin/lava-worker --url "http://127.0.0.1:$PORT/" --name "$WORKER" --token "$wtoken" --ping-interval 5 --worker-dir "$DIR/worker"
  local token
  token=$(admin_token)
  echo "$token" >"$DIR/token"
  chmod 600 "$DIR/token"
  echo "lava://127.0.0.1:$PORT/qemu" >"$DIR/target"
  # the devices are usable once the worker has pinged the server
  for _ in $(seq 1 60); do
    if curl -fsS -H "Authorization: Token $token" "http://127.0.0.1:$PORT/api/v0.2/workers/$WORKER/" | grep -q '"state":"Online"'; then
      say "up in $((SECONDS - t0)) s: $devices qemu device(s) on worker $WORKER; target $(cat "$DIR/target"), token in $DIR/token"
      cat "$DIR/target"
      return
    fi
    sleep 1
  done
  die "the worker did not come online within 60 s; see $DIR/worker.log"
}

down() {
  [ -d "$DIR" ] || { say "nothing to stop ($DIR does not exist)"; return; }
  for name in worker publisher scheduler gunicorn; do
    local f="$DIR/$name.pid"
    [ -e "$f" ] || continue
    local pid
    pid=$(cat "$f")
    # the whole session the process leads: gunicorn's workers, the worker's lava-run and qemu
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$f"
  done
  for dev in $(ls "$DEVTYPES" 2>/dev/null | sed -n 's/^\(qemu[0-9][0-9]\)\.jinja2$/\1/p'); do
    manage devices update --health RETIRED "$dev" >/dev/null 2>&1 || true
    rm -f "$DEVTYPES/$dev.jinja2"
  done
  if [ -e "$DIR/postgres-started" ]; then pg_ctlcluster "$PG" main stop || true; fi
  rm -rf "$DIR"
  say "down: every process started by up has ended"
}

case ${1:-} in
  install) install_packages ;;
  up) shift; up "$@" ;;
  down) down ;;
  *) die "usage: $0 install | up [--devices N] | down" ;;
esac
