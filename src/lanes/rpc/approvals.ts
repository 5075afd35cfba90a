// Codex approval requests → a4aa permission requests, and the host's (or the preset's)
// decision back into the decision Codex expects. Fail-closed is always `decline`, so it is
// always offered, and it comes before Codex's turn-stopping `cancel`: a host that picks the
// first option of a kind (as ACP hosts do) gets what ACP means by it.
import type * as C from "../../../generated/codex/types.js";
import type { LanePermissionOption, PermissionAsk, PermissionDecision } from "../lane.js";
import type { ToolItemMemory } from "./map-notification.js";

export const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
export const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";

type Decision = C.CommandExecutionApprovalDecision | C.FileChangeApprovalDecision;

/** Offered when a request carries no `availableDecisions` (lanes.md §2). */
const DEFAULT_DECISIONS: Decision[] = ["accept", "acceptForSession", "decline"];

/** The fail-closed answer: the command or edit does not happen and the turn goes on. */
export const DECLINE = { decision: "decline" } as const;

const SIMPLE: Record<string, Omit<LanePermissionOption, "optionId">> = {
  accept: { name: "Allow once", kind: "allowOnce" },
  acceptForSession: { name: "Allow for this session", kind: "allowAlways" },
  decline: { name: "Decline (the turn goes on without it)", kind: "rejectOnce" },
  // Declines *and* interrupts the turn: only the host may choose that.
  cancel: { name: "Decline and stop the turn", kind: "rejectOnce", auto: false },
};

/** Options are offered kind by kind in ACP's order; within a kind, plain ones before host-only ones. */
const KIND_ORDER: LanePermissionOption["kind"][] = ["allowOnce", "allowAlways", "rejectOnce", "rejectAlways"];

/** An approval request turned into options, each remembering the Codex decision it stands for. */
export interface ApprovalAsk {
  ask: PermissionAsk;
  decisions: Map<string, Decision>;
}

function option(d: unknown): { opt: LanePermissionOption; decision: Decision } | null {
  if (typeof d === "string") {
    const s = SIMPLE[d];
    return s ? { opt: { optionId: d, ...s }, decision: d as Decision } : null;
  }
  if (!d || typeof d !== "object") return null;
  // Structured decisions change Codex's rules for later commands: offered to the host only.
  const exec = (d as C.AcceptWithExecpolicyAmendmentCommandExecutionApprovalDecision).acceptWithExecpolicyAmendment;
  if (exec && Array.isArray(exec.execpolicy_amendment)) {
    return {
      opt: {
        optionId: "acceptWithExecpolicyAmendment",
        name: `Always allow commands starting with \`${exec.execpolicy_amendment.join(" ")}\``,
        kind: "allowAlways",
        auto: false,
      },
      decision: d as Decision,
    };
  }
  const net = (d as C.ApplyNetworkPolicyAmendmentCommandExecutionApprovalDecision).applyNetworkPolicyAmendment;
  if (net?.network_policy_amendment) {
    const a = net.network_policy_amendment;
    const allow = a.action === "allow";
    return {
      opt: {
        optionId: `applyNetworkPolicyAmendment:${a.action}:${a.host}`,
        name: `${allow ? "Always allow" : "Always deny"} network access to ${a.host}`,
        kind: allow ? "allowAlways" : "rejectAlways",
        auto: false,
      },
      decision: d as Decision,
    };
  }
  return null;
}

function options(available: unknown, onUnknown: (d: unknown) => void): { options: LanePermissionOption[]; decisions: Map<string, Decision> } {
  const list = Array.isArray(available) ? available : DEFAULT_DECISIONS;
  const opts: LanePermissionOption[] = [];
  const decisions = new Map<string, Decision>();
  list.forEach((d, i) => {
    const o = option(d);
    if (!o) {
      onUnknown(d);
      return;
    }
    // Two structured decisions of one sort (unusual) keep apart by their position.
    if (decisions.has(o.opt.optionId)) {
      if (typeof d === "string") return;
      o.opt.optionId += `#${i}`;
    }
    opts.push(o.opt);
    decisions.set(o.opt.optionId, o.decision);
  });
  // Codex (0.171, `untrusted`) may offer `cancel` without `decline`; it takes `decline` all the same.
  if (!decisions.has("decline")) {
    opts.push({ optionId: "decline", ...SIMPLE.decline });
    decisions.set("decline", "decline");
  }
  const rank = (o: LanePermissionOption) => KIND_ORDER.indexOf(o.kind) * 2 + (o.auto === false ? 1 : 0);
  return { options: opts.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i).map(({ o }) => o), decisions };
}

export function commandApproval(
  p: C.CommandExecutionRequestApprovalParams,
  memory: ToolItemMemory | undefined,
  onUnknown: (d: unknown) => void,
): ApprovalAsk {
  const texts: string[] = [];
  if (p.command) texts.push(p.command);
  if (p.cwd) texts.push(`in ${p.cwd}`);
  if (p.reason) texts.push(p.reason);
  if (p.networkApprovalContext) texts.push(`network access to ${p.networkApprovalContext.host} (${p.networkApprovalContext.protocol})`);
  const { options: opts, decisions } = options(p.availableDecisions, onUnknown);
  return {
    ask: {
      toolCallId: p.itemId,
      title: p.command ?? memory?.title ?? p.itemId,
      kind: "execute",
      contentTexts: texts.length ? texts : (memory?.contentTexts ?? []),
      options: opts,
      raw: p,
    },
    decisions,
  };
}

export function fileChangeApproval(
  p: C.FileChangeRequestApprovalParams & { availableDecisions?: unknown },
  memory: ToolItemMemory | undefined,
  onUnknown: (d: unknown) => void,
): ApprovalAsk {
  // The request names only the item: its diffs came with item/started.
  const texts = [...(memory?.contentTexts ?? [])];
  if (p.reason) texts.push(p.reason);
  if (p.grantRoot) texts.push(`write access under ${p.grantRoot}`);
  const { options: opts, decisions } = options(p.availableDecisions, onUnknown);
  return {
    ask: {
      toolCallId: p.itemId,
      title: memory?.title ?? "Edit files",
      kind: "edit",
      contentTexts: texts,
      options: opts,
      raw: p,
    },
    decisions,
  };
}

/** The answer Codex gets: the chosen decision, or `decline` for anything short of a choice. */
export function approvalResponse(a: ApprovalAsk, d: PermissionDecision): { decision: Decision } {
  if (d.outcome !== "selected") return DECLINE;
  return { decision: a.decisions.get(d.optionId) ?? "decline" };
}
