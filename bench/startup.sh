#!/usr/bin/env bash
# Start-up time of the compiled CLI against bare node (the floor): the
# figures in docs/measured.md (Start-up). Target: `--version` and a
# command's `--help` within a few tens of milliseconds of `node -e 0`.
# Builds dist/ first; prints the load average before and after, since on a
# shared machine wall time is mostly waiting for a CPU.
#
#   bench/startup.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
command -v hyperfine > /dev/null || { echo "bench/startup.sh: needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
npm run --silent build
uptime
hyperfine -N --warmup 3 --runs "$runs" \
  'node bin/hintlab.js --version' \
  'node bin/hintlab.js runs --help' \
  'node bin/hintlab.js --help' \
  'node -e 0'
uptime
