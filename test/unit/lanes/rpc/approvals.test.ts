// Codex approval requests → permission asks, and decisions back (lanes.md §2).
import { test } from "node:test";
import assert from "node:assert/strict";
import { approvalResponse, commandApproval, fileChangeApproval } from "../../../../src/lanes/rpc/approvals.js";
import { PRESETS, codexPolicy } from "../../../../src/lanes/rpc/presets.js";
import type { RpcAgentSpec } from "../../../../generated/ts/types.js";
import { presetChoice } from "../../../../src/sessions/permissions.js";

const base = { kind: "command", threadId: "t", turnId: "u", itemId: "call_1", startedAtMs: 1, environmentId: "local" } as const;
const ignore = () => undefined;

test("issue 14: options are the request's availableDecisions kind by kind (allow once, always, reject once, always), plain before host-only; decline always offered before the turn-stopping cancel", () => {
  const unknown: unknown[] = [];
  const a = commandApproval(
    {
      ...base,
      command: "touch x",
      cwd: "/w",
      availableDecisions: [
        "accept",
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "x"] } },
        { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "example.com", action: "deny" } } },
        "cancel",
        { somethingNew: true } as never,
      ],
    },
    undefined,
    (d) => unknown.push(d),
  );
  assert.deepEqual(
    a.ask.options.map((o) => [o.optionId, o.kind, o.auto ?? true]),
    [
      ["accept", "allowOnce", true],
      ["acceptWithExecpolicyAmendment", "allowAlways", false],
      ["decline", "rejectOnce", true],
      ["cancel", "rejectOnce", false],
      ["applyNetworkPolicyAmendment:deny:example.com", "rejectAlways", false],
    ],
  );
  assert.match(a.ask.options.find((o) => o.optionId === "cancel")!.name, /stop the turn/);
  assert.match(a.ask.options.find((o) => o.optionId === "decline")!.name, /the turn goes on/);
  assert.deepEqual(unknown, [{ somethingNew: true }]);
  assert.deepEqual([a.ask.toolCallId, a.ask.kind, a.ask.title], ["call_1", "execute", "touch x"]);
  assert.deepEqual(a.ask.contentTexts, ["touch x", "in /w"]);
  assert.deepEqual(approvalResponse(a, { outcome: "selected", optionId: "acceptWithExecpolicyAmendment" }), {
    decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "x"] } },
  });
});

test("without availableDecisions: accept, acceptForSession, decline", () => {
  const a = commandApproval({ ...base, command: "ls" }, undefined, ignore);
  assert.deepEqual(
    a.ask.options.map((o) => [o.optionId, o.kind]),
    [
      ["accept", "allowOnce"],
      ["acceptForSession", "allowAlways"],
      ["decline", "rejectOnce"],
    ],
  );
});

test("R-PERM-1: anything short of a selection is `decline`; an unknown option id too", () => {
  const a = commandApproval({ ...base, command: "ls" }, undefined, ignore);
  assert.deepEqual(approvalResponse(a, { outcome: "cancelled" }), { decision: "decline" });
  assert.deepEqual(approvalResponse(a, { outcome: "selected", optionId: "nope" }), { decision: "decline" });
  assert.deepEqual(approvalResponse(a, { outcome: "selected", optionId: "acceptForSession" }), { decision: "acceptForSession" });
});

test("a file change approval takes its title and diffs from the item Codex announced", () => {
  const a = fileChangeApproval(
    { threadId: "t", turnId: "u", itemId: "call_p", startedAtMs: 1, reason: "needs write", grantRoot: null },
    { title: "Edit /w/a.txt", kind: "edit", contentTexts: ["add /w/a.txt\nhi\n"] },
    ignore,
  );
  assert.deepEqual([a.ask.title, a.ask.kind], ["Edit /w/a.txt", "edit"]);
  assert.deepEqual(a.ask.contentTexts, ["add /w/a.txt\nhi\n", "needs write"]);
});

test("presets map to approval policy and sandbox; the spec's fields win", () => {
  assert.deepEqual(PRESETS, {
    ask: { approvalPolicy: "untrusted", sandbox: "workspace-write" },
    acceptEdits: { approvalPolicy: "on-request", sandbox: "workspace-write" },
    readOnly: { approvalPolicy: "never", sandbox: "read-only" },
    bypass: { approvalPolicy: "never", sandbox: "danger-full-access" },
  });
  const spec: RpcAgentSpec = { id: "c", lane: "rpc", dialect: "codexAppServer", command: { program: "codex", args: [], env: { policy: "sanitized" } } };
  assert.deepEqual(codexPolicy({ ...spec, sandbox: "read-only" }, "bypass"), { approvalPolicy: "never", sandbox: "read-only" });
});

test("issue 14: neither a preset nor a host taking the first reject option picks `cancel` (it would interrupt the turn): both get decline", () => {
  const a = commandApproval({ ...base, command: "rm x", availableDecisions: ["accept", "cancel"] }, undefined, ignore);
  const choice = presetChoice("readOnly", a.ask.kind);
  assert.deepEqual(choice, { allow: false });
  assert.equal(a.ask.options.find((o) => o.kind === "rejectOnce" && o.auto !== false)?.optionId, "decline");
  const first = a.ask.options.find((o) => o.kind === "rejectOnce")!;
  assert.deepEqual(approvalResponse(a, { outcome: "selected", optionId: first.optionId }), { decision: "decline" });
  assert.deepEqual(approvalResponse(a, { outcome: "selected", optionId: "cancel" }), { decision: "cancel" });
});
