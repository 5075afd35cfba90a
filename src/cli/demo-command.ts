// `a4aa demo`: a small host that does what every host does — spawn `a4aa serve`, open a
// session (here on the bundled example ACP agent), prompt it, print the streamed events,
// answer its permission request, close — offline, on a fresh machine.
import { fileURLToPath } from "node:url";
import type { AgentEvent, PermissionRequest, PermissionResponse } from "../../generated/ts/types.js";
import { A4aaClient } from "../../clients/ts/index.js";
import { UsageError, parseArgs } from "./args.js";
import { Renderer } from "./run/renderer.js";
import { PlainScreen, TtyScreen } from "./run/screen.js";
import { colors, wantColor } from "./run/style.js";

const HELP = `Usage: a4aa demo [--prompt TEXT] [--deny] [--wire]

Spawns 'a4aa serve', opens a session on the bundled example ACP agent, sends one prompt,
prints what the agent streams, answers its permission request, and closes.

  --prompt TEXT   what to ask (default: a request to look at the current directory)
  --deny          reject the agent's permission request instead of allowing it once
  --wire          also print every JSON-RPC message, both directions
`;

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

  // The demo prints through the renderer of `a4aa run`: one printer for both.
  const screen = process.stdout.isTTY ? new TtyScreen(process.stdout) : new PlainScreen(process.stdout);
  const r = new Renderer(screen, colors(wantColor(process.stdout, process.env, false)));
  r.step(`a4aa demo ${r.c.dim("— a host driving the bundled example agent through a real `a4aa serve`")}`);
  const onEvent = (e: AgentEvent) => r.event(e);

  const onPermission = (p: PermissionRequest): PermissionResponse => {
    const choice = flags.deny ? p.options.find((o) => o.kind === "rejectOnce") : p.options.find((o) => o.kind === "allowOnce");
    r.permissionAnswered(p, choice ? choice.name : "cancelled", `the demo host answers; asked: ${p.options.map((o) => o.name).join(" / ")}`);
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
      ? (dir, line) => r.note(`  ${dir === "out" ? "→" : "←"} ${line.length > 300 ? line.slice(0, 300) + "…" : line}`)
      : undefined,
  });

  try {
    r.step(`▸ session/open example agent (acp) in ${process.cwd()}`);
    const open = await client.sessionOpen({
      spec: {
        id: "example",
        lane: "acp",
        command: { program: process.execPath, args: [agent], env: { policy: "sanitized", inherit: ["PATH", "HOME", "TMPDIR"] } },
      },
    });
    r.opened(open, "example agent");
    r.step(`▸ session/prompt ${JSON.stringify(prompt)}`);
    r.turnStarted();
    const outcome = await client.sessionPrompt({ sessionId: open.sessionId, text: prompt });
    r.turnEnded(outcome);
    r.step("▸ session/close");
    await client.sessionClose({ sessionId: open.sessionId });
  } catch (e) {
    r.failed(e, "the demo");
    screen.pause();
    await client.close();
    return 1;
  }
  const { code } = await client.close();
  r.note(`done in ${((Date.now() - started) / 1000).toFixed(1)} s; the sidecar closed every agent and exited ${code}.`);
  screen.pause();
  return code === 0 ? 0 : 1;
}

