// Permission presets → Codex approval policy and sandbox (lanes.md §2). The spec's own
// `approvalPolicy` / `sandbox` fields, when set, win over what the preset implies.
import type { PermissionPreset, RpcAgentSpec } from "../../../generated/ts/types.js";

export type ApprovalPolicy = NonNullable<RpcAgentSpec["approvalPolicy"]>;
export type SandboxMode = NonNullable<RpcAgentSpec["sandbox"]>;

export const PRESETS: Record<PermissionPreset, { approvalPolicy: ApprovalPolicy; sandbox: SandboxMode }> = {
  // Anything not known to be safe is asked (and relayed to the host).
  ask: { approvalPolicy: "untrusted", sandbox: "workspace-write" },
  // Edits inside the workspace need no approval; escalations are asked.
  acceptEdits: { approvalPolicy: "on-request", sandbox: "workspace-write" },
  // Never ask: what the read-only sandbox refuses fails.
  readOnly: { approvalPolicy: "never", sandbox: "read-only" },
  bypass: { approvalPolicy: "never", sandbox: "danger-full-access" },
};

export function codexPolicy(spec: RpcAgentSpec, preset: PermissionPreset): { approvalPolicy: ApprovalPolicy; sandbox: SandboxMode } {
  const p = PRESETS[preset];
  return { approvalPolicy: spec.approvalPolicy ?? p.approvalPolicy, sandbox: spec.sandbox ?? p.sandbox };
}
