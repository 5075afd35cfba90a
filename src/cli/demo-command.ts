// `a4aa demo`: a small host that does what every host does — spawn `a4aa serve`, open a
// session (here on the bundled example ACP agent), prompt it, print the streamed events,
// answer its permission request, close — offline, on a fresh machine.
import { fileURLToPath } from "node:url";
import type { AgentEvent, PermissionRequest, PermissionResponse } from "../../generated/ts/types.js";
import { A4aaClient, A4aaError } from "../../clients/ts/index.js";
import { UsageError, parseArgs } from "./args.js";

const HELP = `Usage: a4aa demo [--prompt TEXT] [--deny] [--wire]

Spawns 'a4aa serve', opens a session on the bundled example ACP agent, sends one prompt,
prints what the agent streams, answers its permission request, and closes.

  --prompt TEXT   what to ask (default: a request to look at the current directory)
  --deny          reject the agent's permission request instead of allowing it once
  --wire          also print every JSON-RPC message, both directions
`;

const tty = process.stdout.isTTY;
const c = (code: string, s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const dim = (s: string) => c("2", s);
const bold = (s: string) => c("1", s);

export async function demoCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { prompt: { value: true }, deny: {}, wire: {}, help: {} }, "a4aa demo --help");
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "a4aa demo --help");
  const prompt = (flags.prompt as string | undefined) ?? "Look at this project and check that the shell works.";
  const wire = flags.wire === true;
  const started = Date.now();
  const cli = fileURLToPath(new URL("./main.js", import.meta.url));
  const agent = fileURLToPath(new URL("../examples/example-agent.js", import.meta.url));

  const out = (s: string) => process.stdout.write(s);
  out(`${bold("a4aa demo")} ${dim("— a host driving the bundled example agent through a real `a4aa serve`")}\n\n`);

  let streaming: string | null = null;
  const endStream = () => {
    if (streaming) out("\n");
    streaming = null;
  };
  const stream = (kind: string, label: string, text: string) => {
    if (streaming !== kind) {
      endStream();
      out(`  ${label} `);
      streaming = kind;
    }
    out(kind === "thought" ? dim(text) : text);
  };

  const onEvent = (e: AgentEvent) => {
    switch (e.type) {
      case "messageChunk":
        return stream("message", c("32", "reply:"), e.text);
      case "thoughtChunk":
        return stream("thought", c("35", "thinking:"), e.text);
      case "plan":
        endStream();
        return out(`  ${c("36", "plan:")} ${e.entries.map((p) => `${p.status === "completed" ? "[x]" : p.status === "inProgress" ? "[~]" : "[ ]"} ${p.content}`).join("  ")}\n`);
      case "toolCall":
        endStream();
        return out(`  ${c("33", "tool:")} ${e.title} ${dim(`(${e.kind}, ${e.status})`)}\n`);
      case "toolCallUpdate":
        endStream();
        return out(`  ${c("33", "tool:")} ${e.toolCallId} ${e.status ?? "updated"}${e.contentTexts?.length ? `: ${e.contentTexts.join(" | ")}` : ""}\n`);
      case "permissionResolved":
        endStream();
        return out(`  ${c("34", "permission:")} ${e.outcome}${e.optionId ? ` ${JSON.stringify(e.optionId)}` : ""} ${dim(`(decided by the ${e.decidedBy})`)}\n`);
      case "usage":
        endStream();
        return out(`  ${c("36", "usage:")} context ${e.contextUsedTokens ?? "?"}/${e.contextWindowTokens ?? "?"} tokens${e.costUsd !== undefined ? `, $${e.costUsd.toFixed(4)} so far` : ""}\n`);
      case "stderr":
        endStream();
        return out(dim(`  agent stderr: ${e.text}\n`));
      default:
        endStream();
        return out(dim(`  ${e.type}: ${JSON.stringify(e).slice(0, 120)}\n`));
    }
  };

  const onPermission = (p: PermissionRequest): PermissionResponse => {
    endStream();
    const choice = flags.deny ? p.options.find((o) => o.kind === "rejectOnce") : p.options.find((o) => o.kind === "allowOnce");
    out(`  ${c("34", "? permission asked:")} ${p.title} ${dim(`(${p.kind})`)} — ${p.options.map((o) => o.name).join(" / ")}\n`);
    out(`    ${dim("the demo host answers")} ${choice ? JSON.stringify(choice.name) : "cancelled"}\n`);
    return choice ? { selected: choice.optionId } : { cancelled: true };
  };

  // The demo is a host like any other: it uses the package's own client.
  const client = A4aaClient.start({
    command: [process.execPath, cli, "serve"],
    onStderr: (t) => process.stderr.write(t),
    onPermission,
    maxLineBytes: 256 * 1024 * 1024,
    // Printed as they come, in order with the answers.
    onMessage: (m) => {
      const msg = m as { method?: string; params?: { event: AgentEvent } };
      if (msg.method === "session/event" && msg.params) onEvent(msg.params.event);
    },
    onLine: wire
      ? (dir, line) => {
          endStream();
          out(dim(`  ${dir === "out" ? "→" : "←"} ${line.length > 300 ? line.slice(0, 300) + "…" : line}\n`));
        }
      : undefined,
  });

  try {
    out(`${bold("▸ session/open")} example agent (acp) in ${process.cwd()}\n`);
    const open = await client.sessionOpen({
      spec: {
        id: "example",
        lane: "acp",
        command: { program: process.execPath, args: [agent], env: { policy: "sanitized", inherit: ["PATH", "HOME", "TMPDIR"] } },
      },
    });
    const modes = (open.sessionState?.modes as { availableModes?: { id: string }[] } | undefined)?.availableModes?.map((m) => m.id) ?? [];
    out(`  session ${open.sessionId} · agent ${open.agentInfo?.title ?? open.agentInfo?.name} ${open.agentInfo?.version} · modes ${modes.join(", ")}\n`);
    out(`${bold("▸ session/prompt")} ${JSON.stringify(prompt)}\n`);
    const outcome = await client.sessionPrompt({ sessionId: open.sessionId, text: prompt });
    endStream();
    const u = outcome.usage;
    out(`${bold("◂ turn ended:")} ${outcome.stopReason}${u ? ` · ${u.inputTokens ?? "?"} tokens in, ${u.outputTokens ?? "?"} out${u.costUsd !== undefined ? `, $${u.costUsd.toFixed(4)}` : ""}` : ""}\n`);
    out(`${bold("▸ session/close")}\n`);
    await client.sessionClose({ sessionId: open.sessionId });
  } catch (e) {
    endStream();
    const detail = e instanceof A4aaError ? `${e.code || e.rpcCode}: ${e.detail ?? e.message}` : (e as Error).message;
    out(`demo failed: ${detail}\n`);
    await client.close();
    return 1;
  }
  const { code } = await client.close();
  out(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s; the sidecar closed every agent and exited ${code}.\n`);
  return code === 0 ? 0 : 1;
}

