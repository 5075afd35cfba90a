// A program that is not found is said with a PATH a person can read (issue 29: a 600-character
// PATH buried the point).
import assert from "node:assert/strict";
import { test } from "node:test";
import { A4aaError } from "../../../src/errors.js";
import { pathForPeople, resolveProgram } from "../../../src/supervise/resolve-program.js";

test("pathForPeople: short PATHs whole, long ones cut to four folders and a count", () => {
  assert.equal(pathForPeople(undefined), "unset");
  assert.equal(pathForPeople("/a:/b"), "/a:/b");
  const long = Array.from({ length: 40 }, (_, i) => `/opt/tool-${i}/bin`).join(":");
  assert.equal(pathForPeople(long), "/opt/tool-0/bin:/opt/tool-1/bin:/opt/tool-2/bin:/opt/tool-3/bin:… 36 more folders");
});

test("spawn_failed for a program not on a long PATH stays short", () => {
  const PATH = Array.from({ length: 40 }, (_, i) => `/nonexistent/dir-number-${i}/bin`).join(":");
  assert.throws(
    () => resolveProgram("no-such-agent-program", { PATH }, "/"),
    (e: unknown) => e instanceof A4aaError && e.code === "spawn_failed" && (e.detail ?? "").length < 260 && /36 more folders/.test(e.detail ?? ""),
  );
});
