// One body, many cases: each mutates this repository's own a4aa.v1 document and states the
// changes the diff must report, with their rule, location and verdict. `generic:` notes what a
// generic JSON-Schema diff says about the same change, where it is wrong.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { diffTexts } from "../../../src/schema-diff/diff.js";
import { RULES } from "../../../src/schema-diff/rules.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
// Without OpenResult.spec (1.2): the cases below judge AgentSpec and its parts as what they
// were written for, input only; that field makes them an output too (hosts read it).
const BASE = (() => {
  const d = JSON.parse(readFileSync(path.join(root, "schema/a4aa.v1.openrpc.json"), "utf8"));
  delete d.components.schemas.OpenResult.properties.spec;
  return JSON.stringify(d, null, 2);
})();

type Doc = {
  methods: Record<string, any>[];
  components: { schemas: Record<string, any>; errors: Record<string, any> };
  [k: string]: any;
};
const S = (d: Doc) => d.components.schemas;
const M = (d: Doc, name: string) => d.methods.find((m) => m.name === name)!;
const P = (d: Doc, method: string, param: string) => M(d, method).params.find((p: any) => p.name === param);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

interface Case {
  name: string;
  /** Applied to both documents before `change` (to set up a situation the base lacks). */
  setup?: (d: Doc) => void;
  change: (d: Doc) => void;
  /** `rule @ location => verdict`, every non-docs change, in any order. */
  expect: string[];
  bump?: "none" | "patch" | "minor" | "major";
  generic?: string;
}

const CASES: Case[] = [
  // Enums and consts: the direction decides.
  { name: "enum value removed from an input", change: (d) => S(d).Effort.enum.pop(), expect: ["enum-value-removed @ Effort => breaking for hosts"], bump: "major" },
  { name: "enum value added to an input", change: (d) => S(d).Effort.enum.push("max"), expect: ["enum-value-added @ Effort => compatible"], bump: "minor" },
  {
    name: "enum value added to an output (exhaustive switch)",
    change: (d) => S(d).ToolCallStatus.enum.push("paused"),
    expect: ["enum-value-added @ ToolCallStatus => breaking for hosts"],
    bump: "major",
    generic: "compatible (the schema got wider)",
  },
  {
    name: "enum value removed from an output",
    change: (d) => S(d).ToolCallStatus.enum.pop(),
    expect: ["enum-value-removed @ ToolCallStatus => breaking for sidecars"],
    bump: "minor",
    generic: "breaking for everyone (the schema got narrower)",
  },
  {
    name: "error code added to error data (an open output enum: x-open)",
    change: (d) => {
      S(d).ErrorCode.enum.push("quota_exceeded");
      S(d).ErrorCode["x-error-codes"].quota_exceeded = { rpcError: "AdapterError", message: "Quota exceeded" };
    },
    expect: ["enum-value-added @ ErrorCode => warning"],
    generic: "nothing: ErrorData is not referenced by any $ref",
  },
  { name: "const changed in an output", change: (d) => (S(d).PingResult.properties.protocol.const = "a4aa.v1.1"), expect: ["const-changed @ PingResult.protocol => breaking for hosts and sidecars"] },
  {
    name: "enum values and union branches reordered",
    change: (d) => {
      S(d).Effort.enum.reverse();
      S(d).AgentEvent.oneOf.reverse();
      S(d).EnvValue.oneOf.reverse();
    },
    expect: [],
    bump: "none",
    generic: "enum and oneOf changed",
  },
  {
    name: "inline enum moved into a named type with the same values",
    change: (d) => {
      S(d).PlanPriority = S(d).PlanEntry.properties.priority;
      S(d).PlanEntry.properties.priority = ref("PlanPriority");
    },
    expect: ["codegen-changed @ PlanEntry.priority => warning"],
    generic: "a type change at PlanEntry.priority",
  },

  // Discriminated unions.
  {
    name: "variant added to AgentEvent (hosts are told to ignore unknown types)",
    change: (d) => {
      S(d).ImageEvent = { type: "object", properties: { type: { type: "string", const: "image" }, url: { type: "string" } }, required: ["type", "url"] };
      S(d).AgentEvent.oneOf.push(ref("ImageEvent"));
    },
    expect: ["variant-added @ AgentEvent => warning"],
    bump: "minor",
    generic: "compatible",
  },
  {
    name: "variant added to a closed output union",
    change: (d) => {
      S(d).OpenResult.properties.agentInfo.oneOf.push({ type: "string" });
    },
    expect: ["variant-added @ OpenResult.agentInfo => breaking for hosts"],
    generic: "compatible",
  },
  {
    name: "null added to an output (a $ref becomes nullable)",
    change: (d) => (S(d).TurnOutcome.properties.usage = { oneOf: [ref("Usage"), { type: "null" }] }),
    expect: ["variant-added @ TurnOutcome.usage => breaking for hosts"],
    generic: "compatible",
  },
  {
    name: "variant added to what the host answers (PermissionResponse)",
    change: (d) => {
      S(d).PermissionDeferred = { type: "object", properties: { deferred: { type: "boolean", const: true } }, required: ["deferred"], additionalProperties: false };
      S(d).PermissionResponse.oneOf.push(ref("PermissionDeferred"));
    },
    expect: ["variant-added @ PermissionResponse => compatible"],
  },
  {
    name: "plain string widened to a union in an input",
    change: (d) => (S(d).EnvLiterals.additionalProperties = { oneOf: [{ type: "string" }, ref("HostEnvRef")] }),
    expect: ["variant-added @ EnvLiterals{} => compatible"],
  },
  { name: "variant removed from an output union", change: (d) => S(d).AgentEvent.oneOf.pop(), expect: ["variant-removed @ AgentEvent => breaking for sidecars"], generic: "breaking" },
  { name: "variant removed from an input union", change: (d) => S(d).EnvPolicy.oneOf.pop(), expect: ["variant-removed @ EnvPolicy => breaking for hosts"] },
  {
    name: "discriminator value of an output variant renamed",
    change: (d) => (S(d).StderrEvent.properties.type.const = "agentStderr"),
    expect: ["variant-renamed @ AgentEvent => breaking for hosts and sidecars"],
    generic: "a const changed in StderrEvent",
  },
  {
    name: "discriminator value of an input variant renamed",
    change: (d) => (S(d).CliAgentSpec.properties.lane.const = "command"),
    expect: ["variant-renamed @ AgentSpec => breaking for hosts"],
  },
  {
    name: "discriminator property renamed",
    change: (d) => {
      S(d).EnvPolicy.discriminator.propertyName = "kind";
      for (const n of ["SanitizedEnvPolicy", "InheritAllEnvPolicy"]) {
        S(d)[n].properties.kind = S(d)[n].properties.policy;
        delete S(d)[n].properties.policy;
        S(d)[n].required = ["kind"];
      }
    },
    expect: [
      "discriminator-changed @ EnvPolicy => breaking for hosts and sidecars",
      "field-renamed @ SanitizedEnvPolicy.kind => breaking for hosts",
      "field-renamed @ InheritAllEnvPolicy.kind => breaking for hosts",
    ],
  },

  // Fields.
  {
    name: "optional param added to a host → sidecar request",
    change: (d) => M(d, "session/prompt").params.push({ name: "images", schema: { type: "array", items: { type: "string" } } }),
    expect: ["field-added-optional @ SessionPromptParams.images => compatible"],
    bump: "minor",
  },
  {
    name: "required param added to a host → sidecar request",
    change: (d) => M(d, "session/prompt").params.push({ name: "images", required: true, schema: { type: "array", items: { type: "string" } } }),
    expect: ["field-added-required @ SessionPromptParams.images => breaking for hosts"],
  },
  { name: "optional field added to an output", change: (d) => (S(d).TurnOutcome.properties.durationMs = { type: "integer" }), expect: ["field-added-optional @ TurnOutcome.durationMs => compatible"] },
  {
    name: "optional field added to a closed output",
    setup: (d) => (S(d).TurnOutcome.additionalProperties = false),
    change: (d) => (S(d).TurnOutcome.properties.durationMs = { type: "integer" }),
    expect: ["field-added-optional @ TurnOutcome.durationMs => breaking for hosts"],
  },
  {
    name: "required field added to an output",
    change: (d) => {
      S(d).PingResult.properties.pid = { type: "integer" };
      S(d).PingResult.required.push("pid");
    },
    expect: ["field-added-required @ PingResult.pid => breaking for sidecars"],
    bump: "minor",
    generic: "breaking (a new required property)",
  },
  {
    name: "optional param added to a sidecar → host notification",
    change: (d) => M(d, "permission/request").params.push({ name: "locations", schema: { type: "array", items: ref("ToolCallLocation") } }),
    expect: ["field-added-optional @ PermissionRequest.locations => compatible"],
  },
  { name: "field removed from an input", change: (d) => delete S(d).SessionOptions.properties.mode, expect: ["field-removed @ SessionOptions.mode => breaking for hosts"] },
  {
    name: "required field removed from an output",
    change: (d) => {
      delete S(d).OpenResult.properties.capabilities;
      S(d).OpenResult.required = S(d).OpenResult.required.filter((r: string) => r !== "capabilities");
    },
    expect: ["field-removed @ OpenResult.capabilities => breaking for hosts"],
  },
  { name: "optional field removed from an output", change: (d) => delete S(d).TurnOutcome.properties.usage, expect: ["field-removed @ TurnOutcome.usage => warning"] },
  {
    name: "field renamed in an input",
    change: (d) => {
      const p = S(d).PtyOptions.properties;
      p.columns = p.cols;
      delete p.cols;
    },
    expect: ["field-renamed @ PtyOptions.columns => breaking for hosts"],
    generic: "one field removed, one added",
  },
  { name: "optional → required in an input", change: (d) => (S(d).SessionOptions.required = ["model"]), expect: ["field-now-required @ SessionOptions.model => breaking for hosts"] },
  {
    name: "optional → required in an output",
    change: (d) => S(d).TurnOutcome.required.push("text"),
    expect: ["field-now-required @ TurnOutcome.text => breaking for sidecars"],
    generic: "breaking",
  },
  {
    name: "required → optional in an output",
    change: (d) => (S(d).Capabilities.required = S(d).Capabilities.required.filter((r: string) => r !== "images")),
    expect: ["field-now-optional @ Capabilities.images => breaking for hosts"],
    generic: "compatible (the schema got wider)",
  },
  { name: "required → optional in an input", change: (d) => (S(d).Command.required = ["program", "env"]), expect: ["field-now-optional @ Command.args => compatible"] },
  {
    name: "a mixin's field changed: reported once, where it is declared",
    change: (d) => (S(d).AgentSpecCommon.properties.maxOutputBytes.minimum = 1024),
    expect: ["constraint-tightened @ AgentSpecCommon.maxOutputBytes => breaking for hosts"],
    generic: "nothing (allOf not followed) or three changes",
  },
  { name: "object closed (output)", change: (d) => (S(d).SessionState.additionalProperties = false), expect: ["object-closed @ SessionState => breaking for sidecars"] },
  { name: "object opened (input)", change: (d) => delete S(d).SessionOptions.additionalProperties, expect: ["object-opened @ SessionOptions => compatible"] },

  // Types and constraints.
  {
    name: "nullable removed from an output",
    change: (d) => (S(d).OpenResult.properties.nativeSessionId.type = "string"),
    expect: ["type-narrowed @ OpenResult.nativeSessionId => breaking for sidecars"],
    generic: "breaking",
  },
  {
    name: "integer widened to number in an output",
    change: (d) => (S(d).ToolCallLocation.properties.line.type = "number"),
    expect: ["type-widened @ ToolCallLocation.line => breaking for hosts"],
    generic: "compatible",
  },
  { name: "integer widened to number in an input", change: (d) => (S(d).PtyOptions.properties.cols.type = "number"), expect: ["type-widened @ PtyOptions.cols => compatible"] },
  { name: "type changed in an output", change: (d) => (S(d).Usage.properties.costUsd.type = "string"), expect: ["type-changed @ Usage.costUsd => breaking for hosts and sidecars"] },
  { name: "constraint added to an input", change: (d) => (S(d).Command.properties.program.maxLength = 255), expect: ["constraint-tightened @ Command.program => breaking for hosts"] },
  { name: "constraint tightened in an output", change: (d) => (S(d).Usage.properties.inputTokens.minimum = 1), expect: ["constraint-tightened @ Usage.inputTokens => breaking for sidecars"] },
  { name: "constraint loosened in an input", change: (d) => (S(d).PtyOptions.properties.cols.maximum = 2000), expect: ["constraint-loosened @ PtyOptions.cols => compatible"] },
  {
    name: "a type used both ways: judged both ways",
    change: (d) => (S(d).SessionId.minLength = 3),
    expect: ["constraint-tightened @ SessionId => breaking for hosts and sidecars"],
  },
  {
    name: "pattern changed in an output",
    setup: (d) => (S(d).SessionInfoEvent.properties.title.pattern = "^\\S"),
    change: (d) => (S(d).SessionInfoEvent.properties.title.pattern = "^[A-Z]"),
    expect: ["constraint-changed @ SessionInfoEvent.title => breaking for sidecars"],
  },

  // Methods and errors.
  { name: "host → sidecar method removed", change: (d) => d.methods.splice(d.methods.indexOf(M(d, "session/cancel")), 1), expect: ["method-removed @ method session/cancel => breaking for hosts"] },
  {
    name: "sidecar → host request removed",
    change: (d) => d.methods.splice(d.methods.indexOf(M(d, "permission/request")), 1),
    expect: ["method-removed @ method permission/request => breaking for sidecars"],
  },
  {
    name: "host → sidecar method added",
    change: (d) => d.methods.push({ ...structuredClone(M(d, "session/close")), "x-ends-event-stream": undefined, name: "session/list", params: [], result: { name: "r", schema: ref("JsonObject") } }),
    expect: ["method-added @ method session/list => compatible"],
  },
  {
    name: "sidecar → host notification added",
    change: (d) => d.methods.push({ name: "session/closed", summary: "s", "x-direction": "sidecarToHost", "x-notification": true, paramStructure: "by-name", params: [{ name: "sessionId", required: true, schema: ref("SessionId") }] }),
    expect: ["method-added @ method session/closed => compatible"],
  },
  {
    name: "method renamed",
    change: (d) => (M(d, "session/close").name = "session/end"),
    expect: ["method-renamed @ method session/end => breaking for hosts"],
    generic: "one method removed, one added",
  },
  { name: "method direction changed", change: (d) => (M(d, "session/cancel")["x-direction"] = "sidecarToHost"), expect: ["method-direction-changed @ method session/cancel => breaking for hosts and sidecars"] },
  {
    name: "request became a notification",
    change: (d) => {
      M(d, "session/cancel")["x-notification"] = true;
      delete M(d, "session/cancel").result;
    },
    expect: ["method-kind-changed @ method session/cancel => breaking for hosts and sidecars"],
  },
  {
    name: "error code changed",
    change: (d) => (d.components.errors.UnknownSession.code = -32002),
    expect: ["error-code-changed @ error UnknownSession => breaking for hosts and sidecars"],
  },
  { name: "error listed on a method", change: (d) => M(d, "session/close").errors.push({ $ref: "#/components/errors/UnknownSession" }), expect: ["error-added @ method session/close => compatible"] },
  {
    name: "x-error-codes declared: it writes down what the sidecar already answered",
    setup: (d) => {
      d["x-extensions"] = d["x-extensions"].filter((e: any) => e.name !== "x-error-codes");
      delete S(d).ErrorCode["x-error-codes"];
    },
    change: (d) => {
      const n = JSON.parse(BASE) as Doc;
      d["x-extensions"] = n["x-extensions"];
      S(d).ErrorCode["x-error-codes"] = S(n).ErrorCode["x-error-codes"];
    },
    expect: [],
    bump: "none",
  },
  {
    name: "error code answered with another JSON-RPC error (x-error-codes)",
    change: (d) => (S(d).ErrorCode["x-error-codes"].session_closed.rpcError = "UnknownSession"),
    expect: ["error-code-changed @ ErrorCode session_closed => breaking for hosts and sidecars"],
  },
  { name: "error code's default retryable changed", change: (d) => (S(d).ErrorCode["x-error-codes"].agent_exited.retryable = true), expect: ["protocol-fact-changed @ ErrorCode agent_exited => warning"] },
  { name: "method's error stage changed", change: (d) => (M(d, "session/cancel")["x-error-stage"] = "prompt"), expect: ["protocol-fact-changed @ method session/cancel => warning"] },
  {
    name: "session/close no longer ends the event stream",
    change: (d) => delete M(d, "session/close")["x-ends-event-stream"],
    expect: ["event-stream-end-changed @ method session/close => breaking for hosts and sidecars"],
  },
  { name: "protocol renamed", change: (d) => (d["x-protocol"] = "a4aa.v2"), expect: ["protocol-renamed @ x-protocol => breaking for hosts and sidecars"] },

  // Experimental elements.
  {
    name: "experimental field removed",
    setup: (d) => (S(d).SessionOptions.properties.mode["x-experimental"] = true),
    change: (d) => delete S(d).SessionOptions.properties.mode,
    expect: ["field-removed @ SessionOptions.mode => compatible (experimental)"],
    bump: "minor",
  },
  {
    name: "experimental method removed",
    setup: (d) => (M(d, "session/cancel")["x-experimental"] = true),
    change: (d) => d.methods.splice(d.methods.indexOf(M(d, "session/cancel")), 1),
    expect: ["method-removed @ method session/cancel => compatible (experimental)"],
  },
  {
    name: "change inside a type only an experimental method uses",
    setup: (d) => (M(d, "session/prompt")["x-experimental"] = true),
    change: (d) => S(d).Effort.enum.pop(),
    expect: ["enum-value-removed @ Effort => breaking for hosts"],
    generic: "(session/open uses Effort too, so the promise still holds)",
  },
  {
    name: "change to a param of an experimental method",
    setup: (d) => (M(d, "session/prompt")["x-experimental"] = true),
    change: (d) => (P(d, "session/prompt", "model").required = true),
    expect: ["field-now-required @ SessionPromptParams.model => compatible (experimental)"],
  },
  {
    name: "required field added, marked experimental",
    change: (d) => {
      S(d).SessionOptions.properties.quarantine = { type: "string", "x-experimental": true };
      S(d).SessionOptions.required = ["quarantine"];
    },
    expect: ["field-added-required @ SessionOptions.quarantine => compatible (experimental)"],
  },
  {
    name: "stable element marked experimental",
    change: (d) => (S(d).Effort["x-experimental"] = true),
    expect: ["experimental-marked @ Effort => breaking for hosts"],
  },
  {
    name: "marking experimental and breaking in the same change is not excused",
    change: (d) => {
      S(d).Effort["x-experimental"] = true;
      S(d).Effort.enum.pop();
    },
    expect: ["experimental-marked @ Effort => breaking for hosts", "enum-value-removed @ Effort => breaking for hosts"],
  },
  {
    name: "experimental element made stable",
    setup: (d) => (M(d, "session/cancel")["x-experimental"] = true),
    change: (d) => delete M(d, "session/cancel")["x-experimental"],
    expect: ["experimental-unmarked @ method session/cancel => compatible"],
  },
  {
    name: "an output enum marked open (x-open): exhaustive host switches must handle unknown values",
    change: (d) => (S(d).ToolCallStatus["x-open"] = true),
    expect: ["open-marked @ ToolCallStatus => warning"],
    bump: "minor",
    generic: "nothing (an unknown keyword)",
  },
  {
    name: "an enum no longer open",
    change: (d) => delete S(d).ToolKind["x-open"],
    expect: ["open-unmarked @ ToolKind => compatible"],
  },
  {
    name: "x-open added where the description already said hosts ignore unknown members: no change",
    change: (d) => delete S(d).AgentEvent["x-open"],
    expect: [],
    bump: "none",
  },

  // Everything else.
  { name: "description changed", change: (d) => (S(d).Effort.description = "How hard the model thinks."), expect: [], bump: "none" },
  { name: "unreferenced type added", change: (d) => (S(d).Spare = { type: "string" }), expect: ["type-added @ Spare => compatible"] },
  { name: "unreferenced type removed", setup: (d) => (S(d).Spare = { type: "string" }), change: (d) => delete S(d).Spare, expect: ["type-removed @ Spare => warning"] },
  { name: "tsType changed", change: (d) => (S(d).JsonValue.tsType = "JsonValue"), expect: ["codegen-changed @ JsonValue => warning"] },
  { name: "params type renamed (x-params-type)", change: (d) => (M(d, "session/open")["x-params-type"] = "OpenParams"), expect: ["codegen-changed @ method session/open => warning"] },
  {
    name: "keyword no rule knows",
    change: (d) => (S(d).SessionId.not = { const: "0" }),
    expect: ["unclassified @ SessionId => breaking for hosts and sidecars"],
  },
];

const render = (c: { rule: string; location: string; verdict: string; experimental: boolean }) =>
  `${c.rule} @ ${c.location} => ${c.experimental ? "compatible (experimental)" : c.verdict}`;

for (const c of CASES) {
  test(`${c.name}${c.generic ? ` (generic tools: ${c.generic})` : ""}`, () => {
    const oldDoc = JSON.parse(BASE) as Doc;
    c.setup?.(oldDoc);
    const newDoc = structuredClone(oldDoc);
    c.change(newDoc);
    const d = diffTexts(JSON.stringify(oldDoc), JSON.stringify(newDoc));
    const got = d.changes.filter((x) => x.verdict !== "docs").map(render);
    assert.deepEqual([...got].sort(), [...c.expect].sort());
    if (c.bump) assert.equal(d.bump, c.bump);
  });
}

test("the document compared with itself has no changes", () => {
  assert.deepEqual(diffTexts(BASE, BASE).changes, []);
});

test("every rule is proven by at least one case", () => {
  const covered = new Set(CASES.flatMap((c) => c.expect.map((e) => e.split(" @ ")[0])));
  covered.add("docs-changed");
  covered.add("protocol-fact-declared"); // a docs verdict: proven by its own test below
  const missing = RULES.map((r) => r.name).filter((r) => !covered.has(r));
  // error-removed mirrors error-added; both are compatible and share the code path.
  assert.deepEqual(missing.filter((r) => r !== "error-removed"), []);
  assert.ok(CASES.length >= 30);
});

test("declaring an x- protocol fact for the first time is a docs change (protocol-fact-declared)", () => {
  const old = JSON.parse(BASE) as Doc;
  old["x-extensions"] = old["x-extensions"].filter((e: any) => e.name !== "x-error-stage");
  for (const m of old.methods) delete m["x-error-stage"];
  const d = diffTexts(JSON.stringify(old), BASE);
  assert.deepEqual(d.changes.map((c) => `${c.rule} @ ${c.location}: ${c.detail} => ${c.verdict}`), ["protocol-fact-declared @ x-extensions: x-error-stage declared => docs"]);
  assert.equal(d.bump, "none");
});
