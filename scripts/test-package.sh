#!/usr/bin/env bash
# The package as npm would publish it, used the way a host project uses it:
#   npm pack → npm install the tarball into a scratch project, with install scripts off
#   (as npm 12 does for unapproved packages, so node-pty stays unbuilt) → then check
#   1. `npx a4aa --version` and `npx a4aa demo` from the installed package;
#   2. the README's TypeScript host, word for word, and a user of the main export (`a4aa`:
#      types, method table, validators) type-check against the package's own declarations
#      (skipLibCheck off) and run; the host drives the bundled example agent through the
#      client's default sidecar (the package's a4aa serve; none on PATH);
#   3. a PTY session without node-pty's native build fails session/open with spawn_failed
#      and the fix, and the sidecar goes on.
# Needs `npm run build` first. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/a4aa-package.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
check() { # name, command...
  local name=$1
  shift
  if "$@" >"$WORK/out.txt" 2>&1; then
    passed=$((passed + 1))
    echo "✔ $name"
  else
    failed=$((failed + 1))
    echo "✖ $name"
    sed 's/^/    /' "$WORK/out.txt" | tail -40
  fi
}

npm pack --silent --pack-destination "$WORK" >/dev/null || { echo "npm pack failed"; echo "0 passed, 1 failed"; exit 1; }
TGZ=$(ls "$WORK"/a4aa-*.tgz)
HOST=$WORK/host
mkdir "$HOST"
cd "$HOST"
printf '{ "name": "scratch-host", "private": true, "type": "module" }\n' >package.json
if ! npm install --silent --no-audit --no-fund --prefer-offline --ignore-scripts "$TGZ" >"$WORK/install.txt" 2>&1; then
  cat "$WORK/install.txt"
  echo "0 passed, 1 failed"
  exit 1
fi
PKG=$HOST/node_modules/a4aa
AGENT=$PKG/dist/src/examples/example-agent.js
# Nothing called a4aa on PATH: the client must find its own package's sidecar.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/a4aa" ] || printf '%s:' "$d"; done)
export PATH=${PATH%:}

check "npx a4aa --version answers the package's version" \
  bash -c "npx --no-install a4aa --version | grep -qx \"\$(node -p 'require(\"a4aa/package.json\").version')\""
check "npx a4aa demo runs from the installed package" \
  bash -c 'npx --no-install a4aa demo | tee /dev/stderr | grep -q "exited 0"'

# The README's TypeScript host, as written.
awk '/^### TypeScript/{f=1} f&&/^```ts$/{c=1;next} c&&/^```$/{exit} c' "$ROOT/README.md" >host.ts
cat >tsconfig.json <<EOF
{
  "compilerOptions": {
    "strict": true, "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",
    "outDir": "out", "skipLibCheck": false,
    "typeRoots": ["$ROOT/node_modules/@types"], "types": ["node"]
  },
  "files": ["host.ts", "protocol.ts"]
}
EOF
# The main export: the protocol's types, method table and typed validators.
cat >protocol.ts <<'EOF'
import { METHODS, SCHEMA_VERSION, paramsValidators, validators, type AgentEvent, type ParamsOf } from "a4aa";
const open: ParamsOf<"session/open"> = { spec: { id: "x", lane: "acp", command: { program: "agent", args: [], env: { policy: "sanitized", inherit: ["PATH"] } } } };
if (!paramsValidators["session/open"](open)) throw new Error("a valid session/open was rejected");
const ev: unknown = JSON.parse('{"type":"messageChunk","text":"hi"}');
if (!validators.validateAgentEvent(ev)) throw new Error("a valid event was rejected");
const typed: AgentEvent = ev; // the validator is a type guard
if (validators.validateAgentEvent({ type: "messageChunk" })) throw new Error("an event without text was accepted");
if (METHODS["session/event"].direction !== "sidecarToHost") throw new Error("the method table lost its directions");
console.log(`a4aa ${SCHEMA_VERSION}: ${Object.keys(METHODS).length} methods, ${typed.type} validated`);
EOF
check "the README's TypeScript host and a user of \"a4aa\" type-check against the package's declarations" \
  bash -c "[ -s host.ts ] && '$ROOT/node_modules/.bin/tsc' -p tsconfig.json"
check "import from \"a4aa\": the protocol's types, method table and typed validators" \
  bash -c "timeout 30 node out/protocol.js"
check "the README's TypeScript host drives the example agent through the default sidecar" \
  bash -c "timeout 120 node out/host.js | tee /dev/stderr | grep -q '^stop reason: endTurn\$'"

cat >pty-missing.mjs <<'EOF'
import { A4aaClient, A4aaError } from "a4aa/client";
const client = A4aaClient.start({ onStderr: () => undefined });
try {
  await client.sessionOpen({ spec: { id: "tty", lane: "cli", driver: "generic", transport: "pty", command: { program: "/bin/cat", args: [], env: { policy: "sanitized", inherit: ["PATH"] } } } });
  throw new Error("session/open succeeded without node-pty's native build");
} catch (e) {
  if (!(e instanceof A4aaError) || e.code !== "spawn_failed" || !/install-scripts approve node-pty/.test(e.message)) throw e;
  console.log(`refused as expected: ${e.code}: ${e.message}`);
}
const { sessionId } = await client.sessionOpen({ spec: { id: "pipe", lane: "cli", driver: "generic", command: { program: "/bin/echo", args: [], env: { policy: "sanitized", inherit: ["PATH"] } } } });
const out = await client.sessionPrompt({ sessionId, text: "still serving" });
if (out.text?.trim() !== "still serving") throw new Error(`unexpected turn text ${JSON.stringify(out.text)}`);
const exit = await client.close();
if (exit.code !== 0) throw new Error(`sidecar exit ${JSON.stringify(exit)}`);
console.log("the pipe transport still works; sidecar exited 0");
EOF
if [ -e "$PKG/node_modules/node-pty/build/Release/pty.node" ] || [ -e "$HOST/node_modules/node-pty/build/Release/pty.node" ]; then
  echo "﹣ node-pty has a native build despite --ignore-scripts: the missing-build check does not apply"
else
  check "without node-pty's native build a PTY session fails to open with spawn_failed and the fix; the sidecar goes on" \
    timeout 60 node pty-missing.mjs
fi

# The Go host outside the repository: the README's recipe, offline (no module proxy).
mkdir -p "$HOST/gohost"
awk '/^### Go example host/{f=1} f&&/^```go$/{c=1;next} c&&/^```$/{exit} c' "$ROOT/README.md" >"$HOST/gohost/main.go"
if command -v go >/dev/null; then
  check "the README's Go host builds outside the repository (replace → node_modules/a4aa/clients/go, GOPROXY=off) and finds the sidecar beside it" \
    bash -c "cd '$HOST/gohost' && [ -s main.go ] && export GOPROXY=off GOFLAGS=-mod=mod GOCACHE='$WORK/gocache' GOPATH='$WORK/gopath' &&
      go mod init example.com/host >/dev/null 2>&1 &&
      go mod edit -require github.com/a4aa/a4aa/clients/go@v0.0.0 -replace github.com/a4aa/a4aa/clients/go=../node_modules/a4aa/clients/go &&
      timeout 300 go run . | tee /dev/stderr | grep -q '^stop reason: endTurn\$'"
else
  echo "﹣ go is not installed: the Go host check does not apply"
fi

# The Python host: a fresh venv (no system packages), the README's install command, no index.
awk '/^### Python example host/{f=1} f&&/^```python$/{c=1;next} c&&/^```$/{exit} c' "$ROOT/README.md" >"$HOST/host.py"
check "pip install ./node_modules/a4aa/clients/python works in a fresh venv with no index, and the README's Python host finds the sidecar beside it" \
  bash -c "[ -s host.py ] && python3 -m venv '$WORK/venv' && PIP_NO_INDEX=1 '$WORK/venv/bin/pip' install -q ./node_modules/a4aa/clients/python &&
    timeout 120 '$WORK/venv/bin/python' host.py | tee /dev/stderr | grep -q '^stop reason: endTurn\$'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
