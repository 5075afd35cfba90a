// R-SANDBOX-1 at session/open: the options with their defaults, the refusal when this
// machine cannot give what was asked (before anything is spawned, never a session that
// silently runs unconfined), and `capabilities.sandbox`.
import type { SandboxCapabilities, SandboxOptions } from "../../generated/ts/types.js";
import { errors } from "../errors.js";
import type { SandboxFilesystem, SandboxNetwork } from "./bwrap-args.js";
import type { Endpoint } from "./relay.js";
import { sandboxSupport, type SandboxSupport } from "./support.js";
import { SessionSandbox } from "./session-sandbox.js";

export interface SandboxAsk {
  filesystem: SandboxFilesystem;
  network: SandboxNetwork;
}

/** `options.sandbox` with its defaults (the schema's), or undefined when not asked. */
export function sandboxAsked(o: SandboxOptions | undefined): SandboxAsk | undefined {
  return o && { filesystem: o.filesystem ?? "cwd", network: o.network ?? "model" };
}

/**
 * Throws `sandbox_unavailable` when the machine cannot sandbox, or network "model" has no
 * endpoint (no custody and no --sandbox-model-endpoint); else returns bubblewrap's path.
 */
export async function checkSandbox(ask: SandboxAsk, route: { custody: boolean; modelEndpoint?: Endpoint }): Promise<string> {
  const support = await sandboxSupport();
  if (!support.available) {
    throw errors.sandboxUnavailable("open", `options.sandbox: this machine cannot sandbox agents: ${support.detail}. Nothing was started; open without sandbox only where running the agent unconfined is acceptable`);
  }
  if (ask.network === "model" && !route.custody && !route.modelEndpoint) {
    throw errors.sandboxUnavailable(
      "open",
      'options.sandbox.network "model": no model endpoint is known — open with options.custody "proxy" (the custody proxy is then the only address the agent reaches), start the sidecar with --sandbox-model-endpoint HOST:PORT, or ask network "none" or "host"',
    );
  }
  return support.bwrap!;
}

/** What the machine can give, and what holds for the session (`host`, `host` when not sandboxed). */
export function sandboxCapabilities(support: SandboxSupport, held: SandboxAsk | undefined): SandboxCapabilities {
  return {
    available: support.available,
    filesystem: held?.filesystem ?? "host",
    network: held?.network ?? "host",
    ...(support.detail ? { detail: support.detail } : {}),
  };
}

/** The sandboxed sessions' private folders and model routes, by session id. */
const held = new Map<string, SessionSandbox>();

/**
 * Prepares session `id`'s sandbox (its private folder, and for network "model" the route to
 * `modelEndpoint`); `sandbox_unavailable` when it cannot be, before anything is spawned.
 */
export async function enterSandbox(
  id: string,
  boxed: SandboxAsk & { bwrap: string; homeFiles: string[] },
  at: { cwd: string; env: Readonly<Record<string, string>>; modelEndpoint?: Endpoint },
): Promise<SessionSandbox> {
  const sandbox = await SessionSandbox.create({ ...boxed, ...at }).catch((e: Error) => {
    throw errors.sandboxUnavailable("open", `options.sandbox: the session's sandbox could not be prepared: ${e.message}; nothing was started`);
  });
  held.set(id, sandbox);
  return sandbox;
}

/** Session `id` is gone (closed, or its open failed): its private folder and route go too. */
export function releaseSandbox(id: string): void {
  void held.get(id)?.dispose();
  held.delete(id);
}
