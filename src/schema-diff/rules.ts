// The compatibility rules: each change the diff finds is named by one rule, and the rule
// judges it by who writes the message that carries it.
// Over 350 lines: one table of rules, each a few lines, read top to bottom as the gate's policy.
//
// "input" = the host writes it and the sidecar reads it: params of host → sidecar methods,
// results of sidecar → host requests, and calling a host → sidecar method at all.
// "output" = the sidecar writes it and the host reads it: results of host → sidecar methods,
// params of sidecar → host methods, error data, and sending a sidecar → host method at all.
//
// Breaking for hosts: a host written against the old document fails against a sidecar that
// implements the new one (what it sends is refused, or what it reads is not what it was promised).
// Breaking for sidecars: a sidecar that implements the old document no longer conforms to the
// new one, so a host written against the new document can fail against it in something it may
// rely on without feature detection. Using something *added* in a new version needs a sidecar
// of at least that version (an older one refuses it cleanly): that is what a minor bump says,
// so additions are compatible.

export type Level = "ok" | "warn" | "break";
export type Role = "input" | "output";

export interface Judgement {
  hosts: Level;
  sidecars: Level;
  why: string;
}

/** What the diff knew about the spot, for the rules that depend on it. */
export interface Facts {
  /** The object rejects unknown fields (additionalProperties / unevaluatedProperties false). */
  closed?: boolean;
  /** The enum or union tells hosts to ignore values they do not know. */
  open?: boolean;
  /** The removed field was required. */
  wasRequired?: boolean;
}

export type Bump = "none" | "patch" | "minor" | "major";

export interface Rule {
  name: string;
  summary: string;
  judge(role: Role, f: Facts): Judgement;
  /** Changes that touch only text or generated names, never the wire. */
  docsOnly?: boolean;
}

const j = (hosts: Level, sidecars: Level, why: string): Judgement => ({ hosts, sidecars, why });
const byRole = (input: Judgement, output: Judgement) => (role: Role) => (role === "input" ? input : output);

const REFUSED = "a host that sends it is now refused (invalid_params)";
const NEEDS_NEW_SIDECAR = "older sidecars refuse it: hosts that use it need a sidecar of this version";

export const RULES: Rule[] = [
  {
    name: "method-added",
    summary: "A method was added.",
    judge: byRole(
      j("ok", "ok", "host → sidecar: older sidecars answer -32601; hosts that call it need a sidecar of this version"),
      j("ok", "ok", "sidecar → host: hosts answer unknown requests with -32601 and drop unknown notifications; the sidecar must treat -32601 as 'not supported'"),
    ),
  },
  {
    name: "method-removed",
    summary: "A method was removed.",
    judge: byRole(
      j("break", "ok", "hosts that call it get -32601"),
      j("ok", "break", "older sidecars still send it and newer hosts no longer handle it"),
    ),
  },
  {
    name: "method-renamed",
    summary: "A method was removed and one with the same direction, params and result added.",
    judge: byRole(
      j("break", "ok", "hosts that call the old name get -32601"),
      j("break", "break", "hosts listen for the old name; older sidecars send the old name to newer hosts"),
    ),
  },
  {
    name: "method-direction-changed",
    summary: "x-direction of a method changed.",
    judge: () => j("break", "break", "the other party now sends the message"),
  },
  {
    name: "method-kind-changed",
    summary: "A request became a notification or the reverse (x-notification), or paramStructure changed.",
    judge: () => j("break", "break", "one side waits for an answer the other never sends, or answers what it must not"),
  },
  {
    name: "error-code-changed",
    summary: "The JSON-RPC code of a declared error changed.",
    judge: () => j("break", "break", "hosts match errors by code"),
  },
  {
    name: "error-added",
    summary: "An error was declared (in components.errors or a method's errors).",
    judge: () => j("ok", "ok", "any JSON-RPC call may fail with any error; hosts handle unknown errors generically"),
  },
  {
    name: "error-removed",
    summary: "A declared error was removed.",
    judge: () => j("ok", "ok", "hosts handle unknown errors generically; no one relied on it being sent"),
  },
  {
    name: "protocol-renamed",
    summary: "x-protocol (the protocol name) changed.",
    judge: () => j("break", "break", "ping answers the protocol name hosts check; a new name is a new protocol"),
  },
  {
    name: "field-added-optional",
    summary: "An optional field was added to an object.",
    judge: (role, f) =>
      role === "input"
        ? j("ok", "ok", `old hosts never send it; ${NEEDS_NEW_SIDECAR}`)
        : f.closed
          ? j("break", "ok", "the object is closed: hosts that validate it reject the unknown field")
          : j("ok", "ok", "hosts must ignore fields they do not know (info.description)"),
  },
  {
    name: "field-added-required",
    summary: "A required field was added to an object.",
    judge: byRole(
      j("break", "ok", "old hosts do not send it: their requests are now refused (invalid_params)"),
      j("ok", "break", "old hosts ignore it; older sidecars do not send it, so newer hosts cannot rely on it"),
    ),
  },
  {
    name: "field-removed",
    summary: "A field was removed from an object.",
    judge: (role, f) =>
      role === "input"
        ? j("break", "ok", `${REFUSED} (or, in an open object, silently ignored)`)
        : f.wasRequired
          ? j("break", "ok", "hosts read a field they were promised")
          : j("warn", "ok", "hosts already handle its absence, but lose what it carried"),
  },
  {
    name: "field-renamed",
    summary: "A field was removed and one with the same schema and requiredness added in the same object.",
    judge: byRole(
      j("break", "ok", "old hosts send the old name: refused (invalid_params)"),
      j("break", "break", "old hosts read the old name; older sidecars send the old name to newer hosts"),
    ),
  },
  {
    name: "field-now-required",
    summary: "An optional field became required.",
    judge: byRole(
      j("break", "ok", "hosts that leave it out are now refused (invalid_params)"),
      j("ok", "break", "older sidecars may leave it out; newer hosts rely on it"),
    ),
  },
  {
    name: "field-now-optional",
    summary: "A required field became optional.",
    judge: byRole(
      j("ok", "ok", `old hosts always send it; ${NEEDS_NEW_SIDECAR} to leave it out`),
      j("break", "ok", "hosts rely on a field that may now be absent"),
    ),
  },
  {
    name: "object-closed",
    summary: "An object now rejects unknown fields.",
    judge: byRole(
      j("break", "ok", "hosts that sent extra fields are now refused"),
      j("ok", "break", "older sidecars may send fields newer hosts reject"),
    ),
  },
  {
    name: "object-opened",
    summary: "An object now accepts unknown fields.",
    judge: byRole(
      j("ok", "ok", "old hosts never sent unknown fields"),
      j("break", "ok", "hosts that validate the closed object reject fields they do not know"),
    ),
  },
  {
    name: "type-narrowed",
    summary: "A JSON type was removed from the allowed ones (e.g. string|null → string, number → integer).",
    judge: byRole(
      j("break", "ok", REFUSED),
      j("ok", "break", "older sidecars may still send the removed type"),
    ),
  },
  {
    name: "type-widened",
    summary: "A JSON type was added to the allowed ones (e.g. string → string|null).",
    judge: byRole(
      j("ok", "ok", `old hosts never send the new type; ${NEEDS_NEW_SIDECAR}`),
      j("break", "ok", "hosts receive a type they cannot read"),
    ),
  },
  {
    name: "type-changed",
    summary: "The JSON type changed to an unrelated one (e.g. string → integer).",
    judge: byRole(
      j("break", "ok", `${REFUSED}; older sidecars refuse what newer hosts send`),
      j("break", "break", "hosts cannot read the new type; older sidecars send the old type"),
    ),
  },
  {
    name: "enum-value-added",
    summary: "A value was added to an enum (or a const became an enum).",
    judge: (role, f) =>
      role === "input"
        ? j("ok", "ok", `old hosts never send it; ${NEEDS_NEW_SIDECAR}`)
        : f.open
          ? j("warn", "ok", "the document tells hosts to ignore values they do not know; hosts that switch exhaustively still break")
          : j("break", "ok", "exhaustive switch: hosts (and their generated validators) reject a value they do not know"),
  },
  {
    name: "enum-value-removed",
    summary: "A value was removed from an enum.",
    judge: byRole(
      j("break", "ok", REFUSED),
      j("ok", "break", "older sidecars may still send it; newer hosts no longer handle it"),
    ),
  },
  {
    name: "const-changed",
    summary: "A const (a single allowed value) changed.",
    judge: byRole(
      j("break", "ok", `${REFUSED}; older sidecars refuse the new value`),
      j("break", "break", "hosts check for the old value; older sidecars send it to newer hosts"),
    ),
  },
  {
    name: "constraint-tightened",
    summary: "A value constraint got stricter or was added (minimum, maxLength, pattern, format, an enum on a plain type …).",
    judge: byRole(
      j("break", "ok", REFUSED),
      j("ok", "break", "older sidecars may send values the new constraint forbids"),
    ),
  },
  {
    name: "constraint-loosened",
    summary: "A value constraint got looser or was removed.",
    judge: byRole(
      j("ok", "ok", `old hosts send values that still pass; ${NEEDS_NEW_SIDECAR}`),
      j("warn", "ok", "hosts may receive values they were promised not to (rarely a crash, often a wrong assumption)"),
    ),
  },
  {
    name: "constraint-changed",
    summary: "A constraint changed in a way that is neither stricter nor looser (a different pattern or format).",
    judge: byRole(
      j("break", "ok", "hosts may send values the new constraint refuses"),
      j("warn", "break", "hosts may receive values outside the old constraint; older sidecars send values outside the new one"),
    ),
  },
  {
    name: "variant-added",
    summary: "A variant was added to a union (oneOf/anyOf, with or without a discriminator).",
    judge: (role, f) =>
      role === "input"
        ? j("ok", "ok", `old hosts never send it; ${NEEDS_NEW_SIDECAR}`)
        : f.open
          ? j("warn", "ok", "the document tells hosts to ignore variants they do not know; hosts that switch exhaustively still break")
          : j("break", "ok", "exhaustive switch: hosts receive a variant they cannot read"),
  },
  {
    name: "variant-removed",
    summary: "A variant was removed from a union.",
    judge: byRole(
      j("break", "ok", REFUSED),
      j("ok", "break", "older sidecars may still send it; newer hosts no longer handle it"),
    ),
  },
  {
    name: "variant-renamed",
    summary: "The discriminator value of a variant changed (its type is otherwise the same).",
    judge: byRole(
      j("break", "ok", "hosts send the old tag: refused (invalid_params)"),
      j("break", "break", "hosts do not know the new tag; older sidecars send the old tag to newer hosts"),
    ),
  },
  {
    name: "discriminator-changed",
    summary: "The discriminator property of a union changed.",
    judge: () => j("break", "break", "both sides tell the variants apart by the old property"),
  },
  {
    name: "experimental-marked",
    summary: "A stable element was marked x-experimental.",
    judge: () => j("break", "ok", "withdraws the compatibility promise hosts were given; the mark never excuses changes made in the same diff"),
  },
  {
    name: "open-marked",
    summary: "An enum or union was marked x-open: later minor versions may add members.",
    judge: byRole(
      j("ok", "ok", "hosts only send values they know"),
      j("warn", "ok", "hosts that switch exhaustively must now handle unknown members (the generated clients do)"),
    ),
  },
  {
    name: "open-unmarked",
    summary: "An enum or union is no longer x-open.",
    judge: () => j("ok", "ok", "from now on members are added only with a major version"),
  },
  {
    name: "experimental-unmarked",
    summary: "An experimental element became stable.",
    judge: () => j("ok", "ok", "the promise starts now"),
  },
  {
    name: "type-added",
    summary: "A named type no method uses was added.",
    judge: () => j("ok", "ok", "generated code gains a type"),
  },
  {
    name: "type-removed",
    summary: "A named type no method used was removed.",
    judge: () => j("warn", "warn", "not on the wire, but code that imports the generated type stops compiling"),
  },
  {
    name: "codegen-changed",
    summary: "A change that leaves the wire alone but changes generated code: a type renamed or inlined, x-params-type, tsType.",
    judge: () => j("warn", "warn", "the wire is unchanged; code that names the generated type must follow the rename"),
  },
  {
    name: "protocol-fact-declared",
    summary: "An x- extension or keyword that states what the sidecar already does (x-error-codes and their endsSession, x-error-stage, x-ends-event-stream, x-limits, x-preset-rules, x-session-process, a field's `default`) was declared for the first time.",
    judge: () => j("ok", "ok", "it writes down the behaviour the previous version already had; generated code gains constants"),
    docsOnly: true,
  },
  {
    name: "protocol-fact-changed",
    summary: "A declared default changed: an error code's retryable or endsSession, a method's error stage, a field's `default`, an x-limits value, a preset rule, the session-process drivers.",
    judge: () => j("warn", "warn", "hosts that branch on the old value see another one; the field is still sent on every error"),
  },
  {
    name: "event-stream-end-changed",
    summary: "Whether a call's success ends the session's event stream changed.",
    judge: () => j("break", "break", "clients end (or keep open) the event stream on the old rule and lose events or wait forever"),
  },
  {
    name: "docs-changed",
    summary: "A description, summary or title changed.",
    judge: () => j("ok", "ok", "text only"),
    docsOnly: true,
  },
  {
    name: "unclassified",
    summary: "A schema keyword changed that no rule knows; judged breaking both ways until a person looks.",
    judge: () => j("break", "break", "the gate cannot tell who breaks; review it and add a rule"),
  },
];

export const RULE_BY_NAME = new Map(RULES.map((r) => [r.name, r]));

export function rule(name: string): Rule {
  const r = RULE_BY_NAME.get(name);
  if (!r) throw new Error(`unknown schema-diff rule ${name}`);
  return r;
}
