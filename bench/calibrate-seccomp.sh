#!/usr/bin/env bash
# Known-effect calibration: can this machine see the change you claim?
# A (plain), B (every syscall pays an N-instruction seccomp filter), A2
# (plain again), then `hintlab compare A B A2`. Every profile whose op is one
# syscall should come out `slower` by the filter's cost, and A vs A2 should
# show no drift. select-1000 (about 30 us per call) and
# sched_setaffinity-queued (a move plus the wait for the target's heartbeat)
# are left out: a 64-instruction filter costs well under 1 % of those calls,
# below the default noise threshold, so hintlab rightly calls them
# `no difference proven`.
#
#   [HINTLAB_DB=FILE] bench/calibrate-seccomp.sh [FILTER_INSTRUCTIONS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-64}
rounds=${2:-15}
db=${HINTLAB_DB:-$(mktemp -d)/calibrate.db}
profiles=getppid,sched_getattr,sched_setattr,sched_getparam,sched_getscheduler,sched_setscheduler,sched_setparam-default,sched_setparam-custom,select-1000-empty,mincore-256k,sched_yield,sched_yield-dual,sched_setaffinity-same-mask
hintlab() { node bin/hintlab.js "$@"; }
hintlab bench --db "$db" --profile "$profiles" --rounds "$rounds" --label A > /dev/null
hintlab bench --db "$db" --profile "$profiles" --rounds "$rounds" --label B --inject-seccomp "$n" > /dev/null
hintlab bench --db "$db" --profile "$profiles" --rounds "$rounds" --label A2 > /dev/null
hintlab compare --db "$db" A B A2
echo "runs stored in $db"
