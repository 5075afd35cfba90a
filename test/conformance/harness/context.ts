// What a check gets: a way to start the implementation (a fresh process), spec builders
// for the suite's fake agents (each carrying the check's env marker), and leftovers.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import type { AcpAgentSpec, CliAgentSpec, EnvValue, RpcAgentSpec, SanitizedEnvPolicy } from "../../../generated/ts/types.js";
import { Host } from "./client.js";
import { MARKER_VAR, markedProcesses, waitNoMarked } from "./procs.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The project's scriptable fake ACP agent (test/fixtures/acp/fake-agent.ts), compiled. */
export const ACP_AGENT = path.resolve(here, "../../fixtures/acp/fake-agent.js");
/** The suite's own fakes. */
export const RPC_AGENT = path.resolve(here, "../../fixtures/rpc/fake-app-server.js");
export const CLI_AGENT = path.resolve(here, "../agents/fake-cli.js");

/** The name of a variable the implementation runs with and no agent may ever see. */
export const SECRET_VAR = "A4AA_CONFORMANCE_SECRET";

export class Skip extends Error {}

/** Markers of checks still running, for an interrupted run to clean up after. */
export const liveMarkers = new Set<string>();

export interface StartOptions {
  /** Flags after the server command (only flags the spec defines). */
  args?: string[];
  env?: Record<string, string>;
}

export class CheckContext {
  readonly marker = `c${process.env.A4AA_TEST_RUN ?? ""}${randomUUID().replace(/-/g, "")}`;
  readonly secret = `secret-${randomUUID()}`;
  readonly hosts: Host[] = [];
  private tmpDir: string | null = null;

  constructor(private readonly serverArgv: string[]) {
    liveMarkers.add(this.marker);
  }

  /** The implementation's command line and environment, for checks that drive it raw. */
  get server(): { argv: string[]; env: NodeJS.ProcessEnv } {
    return { argv: [...this.serverArgv], env: { ...process.env, [SECRET_VAR]: this.secret } };
  }

  /** A fresh temporary directory for this check (removed afterwards). */
  get tmp(): string {
    this.tmpDir ??= mkdtempSync(path.join(os.tmpdir(), "a4aa-conf-"));
    return this.tmpDir;
  }

  get tmpIfAny(): string | null {
    return this.tmpDir;
  }

  /** Starts the implementation under test. */
  start(opts: StartOptions = {}): Host {
    const h = new Host({
      argv: [...this.serverArgv, ...(opts.args ?? [])],
      env: { ...process.env, [SECRET_VAR]: this.secret, ...(opts.env ?? {}) },
    });
    this.hosts.push(h);
    return h;
  }

  /** A sanitized env policy: PATH and HOME, the marker, and `set`. */
  envPolicy(set: Record<string, EnvValue> = {}, inherit = ["PATH", "HOME"]): SanitizedEnvPolicy {
    return { policy: "sanitized", inherit, set: { ...set, [MARKER_VAR]: this.marker } };
  }

  acp(flags: string[] = [], extra: Partial<AcpAgentSpec> = {}): AcpAgentSpec {
    return {
      id: "conformance-acp",
      lane: "acp",
      command: { program: process.execPath, args: [ACP_AGENT, ...flags], env: this.envPolicy() },
      ...extra,
    } as AcpAgentSpec;
  }

  rpc(flags: string[] = [], extra: Partial<RpcAgentSpec> = {}, set: Record<string, EnvValue> = {}): RpcAgentSpec {
    return {
      id: "conformance-rpc",
      lane: "rpc",
      dialect: "codexAppServer",
      command: { program: process.execPath, args: [RPC_AGENT, ...flags], env: this.envPolicy(set) },
      ...extra,
    } as RpcAgentSpec;
  }

  /** The fake CLI speaking `generic` (plain text) or `codex` (`codex exec --json`). */
  cli(driver: "generic" | "codex", extra: Partial<CliAgentSpec> = {}, set: Record<string, EnvValue> = {}): CliAgentSpec {
    return {
      id: `conformance-cli-${driver}`,
      lane: "cli",
      driver,
      command: { program: process.execPath, args: [CLI_AGENT, driver], env: this.envPolicy(set) },
      ...extra,
    } as CliAgentSpec;
  }

  /** Live processes that carry this check's marker. */
  leftovers(): number[] {
    return markedProcesses(this.marker);
  }

  waitNoLeftovers(timeoutMs = 5000): Promise<number[]> {
    return waitNoMarked(this.marker, timeoutMs);
  }

  skip(reason: string): never {
    throw new Skip(reason);
  }
}

export interface Check {
  /** `<requirement>/<slug>`: the name carries the id of the requirement it is about. */
  id: string;
  /** Every requirement this check is evidence for. */
  covers: string[];
  title: string;
  timeoutMs?: number;
  /** Runs alone (memory or timing measurements). */
  heavy?: boolean;
  run(ctx: CheckContext): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
