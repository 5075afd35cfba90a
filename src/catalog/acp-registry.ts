// ACP registry documents (agentclientprotocol/registry's registry.json format) turned into
// catalog entries: npx / uvx packages run through npx / uvx, binaries only when already on
// PATH — a4aa never downloads anything itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Ajv2020 from "ajv/dist/2020.js";
import type { AcpRegistry, AcpRegistryAgent, AcpRegistryPackage } from "../../generated/ts/catalog-types.js";
import { ACP_REGISTRY_SCHEMA } from "../../generated/ts/catalog.js";
import type { CatalogAgent, CatalogEntry, CatalogLane } from "./entries.js";

/** A registry file that cannot be used: the message names the file and the field. */
export class RegistryFileError extends Error {
  constructor(readonly file: string, readonly field: string, problem: string) {
    super(`registry file ${file}: ${field ? `${field}: ` : ""}${problem}`);
    this.name = "RegistryFileError";
  }
}

type Validate = ((d: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: Record<string, unknown> }[] | null };
let validate: Validate | undefined;
// ajv's compiler is loaded only when a registry file is given: it would slow every start-up.
function validator(): Validate {
  if (validate) return validate;
  const mod = createRequire(import.meta.url)("ajv/dist/2020.js") as { default?: typeof Ajv2020.default };
  const Ajv = (mod.default ?? mod) as typeof Ajv2020.default;
  validate ??= new Ajv({ strict: false, allErrors: false }).compile(ACP_REGISTRY_SCHEMA) as Validate;
  return validate;
}

/** `/agents/2/distribution` → `agents[2].distribution`. */
function field(instancePath: string, missing?: unknown): string {
  const parts = instancePath.split("/").filter(Boolean);
  if (typeof missing === "string") parts.push(missing);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
}

/** The registry's platform key for this machine, e.g. `linux-x86_64`. */
export function platformKey(platform = process.platform, arch = process.arch): string {
  const os = platform === "win32" ? "windows" : platform;
  const cpu = arch === "x64" ? "x86_64" : arch === "arm64" ? "aarch64" : arch;
  return `${os}-${cpu}`;
}

function withVersion(pkg: string, version: string): string {
  // `@scope/name@1.2.3` and `name@1.2.3` already pin a version.
  return pkg.slice(1).includes("@") ? pkg : `${pkg}@${version}`;
}

function packageLane(runner: "npx" | "uvx", d: AcpRegistryPackage, version: string): CatalogLane {
  const lead = runner === "npx" ? ["--yes"] : [];
  const lane: CatalogLane = { lane: "acp", program: runner, args: [...lead, withVersion(d.package, version), ...(d.args ?? [])] };
  if (d.env && Object.keys(d.env).length) lane.settings = { ...d.env };
  return lane;
}

export function registryAgentToCatalog(a: AcpRegistryAgent, platform = platformKey()): CatalogAgent | null {
  const lanes: CatalogLane[] = [];
  const bin = a.distribution.binary?.[platform];
  if (bin) {
    // Run by its name from PATH (or its absolute path): installed only when already there.
    const program = bin.cmd.startsWith("/") ? bin.cmd : bin.cmd.split("/").pop()!;
    const lane: CatalogLane = { lane: "acp", program, args: [...(bin.args ?? [])] };
    if (bin.env && Object.keys(bin.env).length) lane.settings = { ...bin.env };
    lanes.push(lane);
  }
  if (a.distribution.npx) lanes.push(packageLane("npx", a.distribution.npx, a.version));
  if (a.distribution.uvx) lanes.push(packageLane("uvx", a.distribution.uvx, a.version));
  if (!lanes.length) return null;
  return {
    id: a.id,
    name: a.name,
    description: a.description || a.name,
    lanes: lanes as CatalogAgent["lanes"],
    ci: false,
    credentials: [],
    ...(a.distribution.npx ? { install: `npm install -g ${withVersion(a.distribution.npx.package, a.version)}` } : {}),
    ...(!a.distribution.npx && a.distribution.uvx ? { install: `uv tool install ${a.distribution.uvx.package}` } : {}),
  };
}

/** Reads and checks one registry file; throws RegistryFileError naming the file and the field. */
export function readRegistryFile(file: string): AcpRegistry {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new RegistryFileError(file, "", `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new RegistryFileError(file, "", `not valid JSON (${(e as Error).message})`);
  }
  const v = validator();
  if (!v(doc)) {
    const err = v.errors?.[0];
    throw new RegistryFileError(file, field(err?.instancePath ?? "", err?.params?.missingProperty) || "(the document)", err?.message ?? "invalid");
  }
  return doc as AcpRegistry;
}

/**
 * The entries of the registry files, in order, after the built-in ones: an id already taken
 * (built in, or by an earlier file) keeps the first and is reported through `warn`.
 */
export function registryEntries(files: string[], taken: Set<string>, warn: (msg: string) => void): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  for (const file of files) {
    const doc = readRegistryFile(file);
    for (const a of doc.agents) {
      if (taken.has(a.id)) {
        warn(`registry file ${file}: agent ${JSON.stringify(a.id)} is already in the catalog; keeping the first one`);
        continue;
      }
      const agent = registryAgentToCatalog(a);
      if (!agent) {
        warn(`registry file ${file}: agent ${JSON.stringify(a.id)} has no npx or uvx package and no binary for ${platformKey()}; skipped`);
        continue;
      }
      taken.add(a.id);
      out.push({ agent, source: file });
    }
  }
  return out;
}
