// `a4aa serve --registry FILE` is repeatable; the other flags go on to the shared parser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { takeRegistryFlags } from "../../../src/catalog/registry-flag.js";

test("R-AGENT-4: --registry FILE and --registry=FILE, repeated, in order; a missing FILE is reported", () => {
  assert.deepEqual(takeRegistryFlags(["--registry", "a.json", "--log-level", "info", "--registry=b.json"]), {
    files: ["a.json", "b.json"],
    rest: ["--log-level", "info"],
    missing: false,
  });
  assert.equal(takeRegistryFlags(["--registry"]).missing, true);
  assert.equal(takeRegistryFlags(["--registry", "--trust-host-env"]).missing, true);
  assert.deepEqual(takeRegistryFlags(["--", "--registry", "x"]).files, []);
});
