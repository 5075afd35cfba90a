// Codex items and token reports → a4aa events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TurnUsage, planOf, rateLimitsOf, statusOf, toolCallOf, toolCallUpdateOf, type ToolItemMemory } from "../../../../src/lanes/rpc/map-notification.js";

const usage = (total: number[], last: number[], window: number | null = 1000) => ({
  total: { inputTokens: total[0], outputTokens: total[1], cachedInputTokens: total[2], reasoningOutputTokens: total[3], totalTokens: total[0] + total[1] },
  last: { inputTokens: last[0], outputTokens: last[1], cachedInputTokens: last[2], reasoningOutputTokens: last[3], totalTokens: last[0] + last[1] },
  modelContextWindow: window,
});

test("usage is the turn's own: the difference from the total before the turn", () => {
  const u = new TurnUsage();
  u.startTurn();
  u.update(usage([10, 5, 1, 1], [10, 5, 1, 1]));
  u.update(usage([30, 9, 2, 1], [20, 4, 1, 0]));
  assert.deepEqual(u.current, { inputTokens: 30, outputTokens: 9, cachedInputTokens: 2, reasoningTokens: 1, totalTokens: 39, contextUsedTokens: 24, contextWindowTokens: 1000 });
  u.startTurn();
  const ev = u.update(usage([50, 12, 2, 3], [20, 3, 0, 2], null));
  assert.deepEqual(ev, { type: "usage", inputTokens: 20, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 2, totalTokens: 23, contextUsedTokens: 23 });
});

test("usage of the first turn of a resumed thread: the first report's total minus its last call", () => {
  const u = new TurnUsage();
  u.startTurn();
  u.update(usage([1000, 100, 0, 0], [40, 10, 0, 0]));
  assert.equal(u.current?.inputTokens, 40);
  assert.equal(u.current?.totalTokens, 50);
});

test("a command item: toolCall execute, then its output and status", () => {
  const mem = new Map<string, ToolItemMemory>();
  const item = { type: "commandExecution", id: "c1", command: "ls -l", cwd: "/w", status: "inProgress", commandActions: [], source: "agent" } as any;
  assert.deepEqual(toolCallOf(item, mem), {
    type: "toolCall",
    toolCallId: "c1",
    title: "ls -l",
    kind: "execute",
    status: "inProgress",
    rawInput: { command: "ls -l", cwd: "/w", commandActions: [] },
  });
  assert.equal(mem.get("c1")?.title, "ls -l");
  const done = toolCallUpdateOf({ ...item, status: "declined", aggregatedOutput: null, exitCode: null }, mem);
  assert.deepEqual(done, { type: "toolCallUpdate", toolCallId: "c1", status: "failed", rawOutput: { status: "declined", exitCode: null, aggregatedOutput: null, durationMs: null } });
  assert.equal(mem.has("c1"), false);
});

test("a file change: kind edit, locations, diffs as content (moves named)", () => {
  const mem = new Map<string, ToolItemMemory>();
  const changes = [
    { path: "/w/a.txt", kind: { type: "add" }, diff: "x\n" },
    { path: "/w/b.txt", kind: { type: "update", move_path: "/w/c.txt" }, diff: "@@\n" },
  ];
  const ev = toolCallOf({ type: "fileChange", id: "f1", changes, status: "inProgress" } as any, mem) as any;
  assert.deepEqual([ev.kind, ev.title, ev.locations], ["edit", "Edit /w/a.txt, /w/b.txt", [{ path: "/w/a.txt" }, { path: "/w/b.txt" }]]);
  assert.deepEqual(mem.get("f1")?.contentTexts, ["add /w/a.txt\nx\n", "update /w/b.txt → /w/c.txt\n@@\n"]);
});

test("MCP and web search items: kinds other and fetch", () => {
  const mem = new Map<string, ToolItemMemory>();
  const mcp = toolCallOf({ type: "mcpToolCall", id: "m", server: "s", tool: "t", arguments: { a: 1 }, status: "inProgress" } as any, mem) as any;
  assert.deepEqual([mcp.kind, mcp.title, mcp.rawInput], ["other", "s.t", { a: 1 }]);
  const failed = toolCallUpdateOf({ type: "mcpToolCall", id: "m", server: "s", tool: "t", arguments: {}, status: "failed", error: { message: "boom" } } as any, mem) as any;
  assert.deepEqual([failed.status, failed.contentTexts], ["failed", ["boom"]]);
  const web = toolCallOf({ type: "webSearch", id: "w", query: "", action: { type: "openPage", url: "https://x.test" } } as any, mem) as any;
  assert.deepEqual([web.kind, web.title], ["fetch", "Open https://x.test"]);
});

test("plan steps become plan entries", () => {
  assert.deepEqual(planOf({ threadId: "t", turnId: "u", explanation: null, plan: [{ step: "a", status: "completed" }, { step: "b", status: "weird" as never }] }), {
    type: "plan",
    entries: [
      { content: "a", status: "completed" },
      { content: "b", status: "pending" },
    ],
  });
});

test("thread/status/changed maps to a status event: idle, active, waiting for approval or input, error", () => {
  const st = (status: unknown) => statusOf({ threadId: "t", status } as never);
  assert.deepEqual(st({ type: "idle" }), { type: "status", status: "idle" });
  assert.deepEqual(st({ type: "notLoaded" }), { type: "status", status: "idle" });
  assert.deepEqual(st({ type: "active", activeFlags: [] }), { type: "status", status: "active" });
  assert.deepEqual(st({ type: "active", activeFlags: ["waitingOnApproval"] }), { type: "status", status: "waitingForApproval" });
  assert.deepEqual(st({ type: "active", activeFlags: ["waitingOnUserInput"] }), { type: "status", status: "waitingForInput" });
  assert.deepEqual(st({ type: "systemError" }), { type: "status", status: "error" });
  assert.deepEqual(st({ type: "somethingNew" }), { type: "status", status: "active" });
});

test("account/rateLimits/updated maps to a rateLimits event with only the fields codex filled in", () => {
  assert.deepEqual(
    rateLimitsOf({
      rateLimits: {
        limitId: "codex",
        limitName: null,
        primary: { usedPercent: 42, windowDurationMins: 300, resetsAt: 1764770000 },
        secondary: { usedPercent: 7, windowDurationMins: null },
        rateLimitReachedType: null,
        credits: { hasCredits: false, unlimited: false },
      },
    } as never),
    { type: "rateLimits", limitId: "codex", primary: { usedPercent: 42, windowMinutes: 300, resetsAt: 1764770000 }, secondary: { usedPercent: 7 } },
  );
  assert.deepEqual(rateLimitsOf({ rateLimits: { rateLimitReachedType: "rate_limit_reached" } } as never), { type: "rateLimits", reached: "rate_limit_reached" });
  assert.deepEqual(rateLimitsOf({ rateLimits: {} } as never), { type: "rateLimits" });
});
