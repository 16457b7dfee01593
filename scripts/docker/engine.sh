#!/usr/bin/env bash
# Makes sure a Docker engine answers on this machine: installs Debian's `docker.io` when dockerd is
# missing, and starts dockerd in the background (its own log file) when none runs, waiting for its
# socket. The last line says what it did, for whoever has to undo it:
#   `engine: running`                 one was already running: leave it alone;
#   `engine: started <pid> <log>`     this script started dockerd as <pid>: stop it with
#                                     scripts/docker/engine.sh stop <pid>.
# Usage: scripts/docker/engine.sh [start | stop PID]   (root)
set -euo pipefail

wait_seconds=${ENGINE_WAIT_SECONDS:-60}

answers() { docker info >/dev/null 2>&1; }

if [ "${1:-start}" = stop ]; then
  pid=${2:?usage: engine.sh stop PID}
  kill -TERM "$pid" 2>/dev/null || exit 0
  # dockerd stops its containers and its own containerd first: give it a bounded while.
  for _ in $(seq 1 "$wait_seconds"); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 1; done
  echo "engine: dockerd $pid still running after ${wait_seconds}s" >&2
  exit 1
fi

if answers; then
  echo "engine: running"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "engine: installing docker.io" >&2
  # Another install may hold apt's lock for a while: wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq docker.io >&2
fi

log=${ENGINE_LOG:-${TMPDIR:-/tmp}/news-analytics-subgraph-dockerd.log}
setsid dockerd >"$log" 2>&1 </dev/null &
pid=$!
for _ in $(seq 1 "$wait_seconds"); do
  if answers; then
    echo "engine: started $pid $log"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "engine: dockerd exited; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  sleep 1
done
echo "engine: dockerd did not answer within ${wait_seconds}s (log: $log)" >&2
kill -TERM "$pid" 2>/dev/null || true
exit 1
