#!/usr/bin/env bash
# Captures the app-server protocol schema of the pinned Codex (test/agents/package.json)
# into schema/vendor/codex-app-server/<version>/, the data codegen/emitters/codex.ts reads.
# Upgrading Codex: bump the pin, `npm run agents:install`, run this, `npm run codegen`,
# and review the diff of schema/vendor/codex-app-server/ and generated/codex/.
# Usage: scripts/capture-codex-schema.sh [path/to/codex]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
codex="${1:-$root/test/agents/node_modules/.bin/codex}"
[ -x "$codex" ] || { echo "capture-codex-schema: $codex not found (run npm run agents:install)" >&2; exit 1; }

pinned="$(node -e 'const p=require(process.argv[1]);console.log(p.dependencies["@openai/codex"])' "$root/test/agents/package.json")"
version="$("$codex" --version | awk '{print $NF}')"
if [ "$version" != "$pinned" ]; then
  echo "capture-codex-schema: $codex is $version but test/agents/package.json pins $pinned" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A scratch CODEX_HOME: the capture must not read or write the user's config.
# --experimental: the app-server sends some experimental fields (e.g. an approval's
# `availableDecisions`) whether or not the client opted in, so the types must know them.
mkdir -p "$work/home"
CODEX_HOME="$work/home" "$codex" app-server generate-json-schema --experimental --out "$work/out" 2>/dev/null

vendor="$root/schema/vendor/codex-app-server"
rm -rf "$vendor"
mkdir -p "$vendor/$version"
# The bundle holds every definition (v1 handshake types at the top, v2 under definitions.v2);
# the per-type files beside it are copies of the same definitions.
cp "$work/out/codex_app_server_protocol.schemas.json" "$vendor/$version/"
echo "captured codex app-server $version schema into schema/vendor/codex-app-server/$version/"
