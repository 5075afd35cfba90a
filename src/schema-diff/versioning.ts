// The versioning rule the gate enforces (README, "Protocol versioning"):
// - info.version is the document's semver; its major is the protocol's number (a4aa.v1 → 1.x.y).
// - A change that breaks hosts needs a major version, i.e. a new protocol (a4aa.v2) in a new
//   file — unless the changed element was marked x-experimental (then a minor bump).
// - Any other change to the wire (additions, relaxations, changes that only break older
//   sidecars, generated-name changes) needs at least a minor bump.
// - Text-only changes (descriptions, summaries) need no bump.
// - Every version has an entry (`## X.Y.Z` with text under it) in schema/CHANGELOG.md.
import { BUMPS, diffDocuments, type Change, type DiffResult } from "./diff.js";
import type { ProtocolModel as ProtocolModel } from "../openrpc/model.js";
import type { Bump } from "./rules.js";

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: string;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseSemver(v: string): SemVer | undefined {
  const m = SEMVER.exec(v);
  return m ? { major: +m[1], minor: +m[2], patch: +m[3], pre: m[4] ?? "" } : undefined;
}

/** The bump from one version to the next, or `downgrade`. */
export function bumpBetween(from: SemVer, to: SemVer): Bump | "downgrade" {
  if (to.major !== from.major) return to.major > from.major ? "major" : "downgrade";
  if (to.minor !== from.minor) return to.minor > from.minor ? "minor" : "downgrade";
  if (to.patch !== from.patch) return to.patch > from.patch ? "patch" : "downgrade";
  if (to.pre === from.pre) return "none";
  // 1.2.0-rc.1 → 1.2.0 is a release of what was promised; any other prerelease move is a patch.
  return "patch";
}

export function nextVersion(v: SemVer, bump: Bump): string {
  if (bump === "major") return `${v.major + 1}.0.0`;
  if (bump === "minor") return `${v.major}.${v.minor + 1}.0`;
  if (bump === "patch") return `${v.major}.${v.minor}.${v.patch + 1}`;
  return `${v.major}.${v.minor}.${v.patch}`;
}

/** `## 1.2.0`, `## [1.2.0] - 2025-01-01`, `## v1.2.0 — …` → version → the entry's text. */
export function changelogEntries(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const h = /^##\s+\[?v?([0-9][^\s\]]*)\]?/.exec(line);
    if (h) {
      current = h[1];
      out.set(current, "");
    } else if (/^#{1,2}\s/.test(line)) current = undefined;
    else if (current) out.set(current, `${out.get(current)}${line}\n`);
  }
  return out;
}

export interface GateInput {
  /** The base document, or null where it did not exist yet. */
  old: ProtocolModel | null;
  new: ProtocolModel;
  /** schema/CHANGELOG.md as of the new document, or null when absent. */
  changelog: string | null;
  /** False for history commits made before the changelog existed. */
  requireChangelog?: boolean;
}

export interface GateResult {
  ok: boolean;
  diff?: DiffResult;
  required: Bump;
  actual: Bump | "downgrade";
  problems: string[];
  notes: string[];
}

const plural = (n: number, s: string) => `${n} ${s}${n === 1 ? "" : "s"}`;

export function judgeGate(input: GateInput): GateResult {
  const problems: string[] = [];
  const notes: string[] = [];
  const nv = parseSemver(input.new.version);
  if (!nv) problems.push(`info.version ${JSON.stringify(input.new.version)} is not a semver version`);
  const protoMajor = /\.v(\d+)$/.exec(input.new.protocol)?.[1];
  if (nv && protoMajor !== undefined && nv.major !== +protoMajor) {
    problems.push(
      `info.version ${input.new.version} does not belong to ${input.new.protocol}: its major must be ${protoMajor} ` +
        `(a major version is a new protocol, a4aa.v${nv.major}, in its own file)`,
    );
  }
  const entries = input.changelog === null ? null : changelogEntries(input.changelog);
  const needEntry = (why: string) => {
    if (input.requireChangelog === false) {
      notes.push(`changelog check skipped (no schema/CHANGELOG.md at this point)`);
      return;
    }
    if (entries === null) problems.push(`schema/CHANGELOG.md is missing (${why})`);
    else if (!entries.has(input.new.version)) problems.push(`schema/CHANGELOG.md has no "## ${input.new.version}" entry (${why})`);
    else if (!entries.get(input.new.version)!.trim()) problems.push(`schema/CHANGELOG.md's "## ${input.new.version}" entry is empty`);
  };

  if (!input.old) {
    notes.push(`document added at version ${input.new.version}`);
    needEntry("the document's first version");
    return { ok: problems.length === 0, required: "none", actual: "none", problems, notes };
  }
  const diff = diffDocuments(input.old, input.new);
  const ov = parseSemver(input.old.version);
  let actual: Bump | "downgrade" = "none";
  if (ov && nv) actual = bumpBetween(ov, nv);
  else if (input.old.version !== input.new.version) actual = "patch";
  const required = diff.bump;
  if (actual === "downgrade") problems.push(`info.version went down: ${input.old.version} → ${input.new.version}`);
  else if (BUMPS.indexOf(actual) < BUMPS.indexOf(required)) {
    const needing = diff.changes.filter((c) => c.bump === required);
    if (required === "major") {
      problems.push(
        `${plural(needing.length, "change")} break hosts: ${input.new.protocol || "this protocol"} cannot take them. ` +
          `Keep the old shape, mark the element x-experimental (only where it already was), or start a new protocol (a4aa.v${(ov?.major ?? 1) + 1}) in its own file.`,
      );
    } else {
      problems.push(
        `${plural(needing.length, "change")} to the wire need a ${required} version bump: ` +
          `set info.version to ${ov ? nextVersion(ov, required) : "a higher version"} (now ${input.new.version}) and add its schema/CHANGELOG.md entry.`,
      );
    }
  }
  if (actual !== "none" && actual !== "downgrade") needEntry(`info.version ${input.old.version} → ${input.new.version}`);
  return { ok: problems.length === 0, diff, required, actual, problems, notes };
}

export type { Change };
