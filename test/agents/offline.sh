#!/usr/bin/env bash
# Runs a command in a new network namespace that has only loopback (Linux, root):
# nothing it or its children (the real agents, their mocks) try can leave the machine.
# The mocks must run inside too, so run the whole suite through it, e.g.
#   bash test/agents/offline.sh node scripts/run-tests.mjs test/agents
# Falls back to running the command as it is (with a warning) where unshare is not allowed.
set -euo pipefail
if [ "$#" -eq 0 ]; then echo "usage: $0 command [args...]" >&2; exit 2; fi
if [ "${A4AA_OFFLINE_INNER:-}" = 1 ]; then
  ip link set lo up
  unset A4AA_OFFLINE_INNER
  exec "$@"
fi
if unshare -n true 2>/dev/null && command -v ip >/dev/null; then
  A4AA_OFFLINE_INNER=1 exec unshare -n "$0" "$@"
fi
echo "offline.sh: cannot make a network namespace here (needs root and unshare/ip); running without isolation" >&2
exec "$@"
