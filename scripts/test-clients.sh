#!/usr/bin/env bash
# The host clients' suites, each with its own runner, against the built sidecar (dist/, from
# `npm run build`; `npm run test:clients` builds first):
#   Go      go vet, gofmt, go test (Go >= 1.19), then the README's example host
#   Python  pip install ./clients/python into a throwaway venv (no index), mypy
#           --strict (when installed), pytest, then the README's example host
#   TS      node's test runner on test/clients (client, shared examples, schema change)
# The suites run at the same time, each in its own `set -e` subshell; their outputs are printed
# one after another, and the exit status says whether all passed.
# A4AA_DIST points at another build; CLIENTS=go,python,ts picks suites.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export A4AA_DIST=${A4AA_DIST:-$ROOT/dist}
CLIENTS=${CLIENTS:-go,python,ts}
NODE=$(command -v node)
AGENT=$A4AA_DIST/src/examples/example-agent.js

for f in "$A4AA_DIST/src/cli/main.js" "$AGENT"; do
  [ -f "$f" ] || { echo "test-clients: $f is missing (run npm run build)" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/a4aa-clients.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The example hosts run `a4aa serve` from PATH, as an installed a4aa would be.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$NODE" "$A4AA_DIST/src/cli/main.js" >"$WORK/bin/a4aa"
chmod +x "$WORK/bin/a4aa"
export PATH="$WORK/bin:$PATH"

declare -A RESULT
step() { printf '\n=== clients: %s\n' "$*"; }
want() { [[ ",$CLIENTS," == *",$1,"* ]]; }

# The example host's output must show the whole turn: a tool call, the granted command, endTurn.
check_host() {
  local out=$1
  grep -q '\[execute: ' "$out" && grep -q 'it printed hello' "$out" && grep -q '^stop reason: endTurn$' "$out"
}

suite_go() {
  step "Go ($(go version 2>/dev/null || echo 'go: not installed'))"
  if command -v go >/dev/null; then
    (
      cd clients/go || exit 1
      set -e
      go vet ./...
      unformatted=$(gofmt -l .)
      [ -z "$unformatted" ] || { echo "gofmt: not formatted: $unformatted"; exit 1; }
      timeout 1200 go test -count=1 -timeout 1100s -v ./... 2>&1 | grep -v -E '^=== (RUN|PAUSE|CONT)' | grep -v -E '^    --- PASS: TestSchemaExamples/'
      step "Go example host (README)"
      timeout 120 go run ./examples/host | tee "$WORK/go-host.out"
      check_host "$WORK/go-host.out"
    )
  else
    echo "go is not installed: apt-get install -y golang-go"
    return 1
  fi
}

suite_python() {
  step "Python ($(python3 --version))"
  (
    set -e
    # --system-site-packages for pytest; the client installs as the README says (its own
    # standard-library build backend: no index, no setuptools or wheel needed).
    python3 -m venv --system-site-packages "$WORK/venv"
    PY=$WORK/venv/bin/python
    PIP_NO_INDEX=1 "$PY" -m pip install -q ./clients/python
    "$PY" -c 'import a4aa, pathlib; p = pathlib.Path(a4aa.__file__).parent; assert (p / "py.typed").exists(); print("installed", p)'
    if command -v mypy >/dev/null; then
      (cd clients/python/src && mypy --strict --cache-dir "$WORK/mypy" -p a4aa && mypy --strict --cache-dir "$WORK/mypy" ../examples/host.py)
    else
      echo "mypy is not installed (apt-get install -y mypy): type check skipped"
    fi
    cd clients/python
    timeout 1200 "$PY" -m pytest -p no:cacheprovider -v -rs tests 2>&1 | grep -v -E 'test_examples.py::test_example\[.* PASSED'
    step "Python example host (README)"
    timeout 120 "$PY" examples/host.py | tee "$WORK/py-host.out"
    check_host "$WORK/py-host.out"
  )
}

suite_ts() {
  step "TypeScript (node $(node --version))"
  [ -d dist/test/clients ] || { echo "dist/test/clients is missing (run npm run build)"; }
  # run-tests.mjs gives each file 120 s; the 64 MiB and schema-change files may need more on a busy machine.
  timeout 1500 node scripts/run-tests.mjs test/clients --test-timeout=900000
}

# The three suites run at once (they wait on sidecars more than they compute: ~80 s one after
# another here); each one's output is printed whole when all are done, in this order.
for k in go python ts; do
  want $k || continue
  (suite_$k >"$WORK/$k.log" 2>&1; echo $? >"$WORK/$k.rc") &
done
wait
for k in go python ts; do
  want $k || continue
  cat "$WORK/$k.log"
  RESULT[$k]=fail
  [ "$(cat "$WORK/$k.rc" 2>/dev/null)" = 0 ] && RESULT[$k]=pass
done


step "summary"
status=0
for k in go python ts; do
  [ -n "${RESULT[$k]:-}" ] || continue
  echo "$k: ${RESULT[$k]}"
  [ "${RESULT[$k]}" = pass ] || status=1
done
exit $status
