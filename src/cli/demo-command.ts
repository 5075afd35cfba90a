// `a4aa demo`: a small host that does what every host does — spawn `a4aa serve`, open a
// session (here on the bundled example ACP agent), prompt it, print the streamed events,
// answer its permission request, close — offline, on a fresh machine.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AgentEvent, OpenResult, PermissionRequest, TurnOutcome } from "../../generated/ts/types.js";
import { JsonRpcPeer, RpcResponseError } from "../transport/json-rpc.js";
import { frameParser } from "../transport/frames.js";
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

  const sidecar = spawn(process.execPath, [cli, "serve"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<number | null>((r) => sidecar.once("exit", (code) => r(code)));
  const onEvent = (e: AgentEvent) => r.event(e);
  const onPermission = (p: PermissionRequest) => {
    const choice = flags.deny ? p.options.find((o) => o.kind === "rejectOnce") : p.options.find((o) => o.kind === "allowOnce");
    r.permissionAnswered(p, choice ? choice.name : "cancelled", `the demo host answers; asked: ${p.options.map((o) => o.name).join(" / ")}`);
    return choice ? { selected: choice.optionId } : { cancelled: true };
  };

  const peer = new JsonRpcPeer({
    sendLine: (line) => {
      if (wire) r.note(`  → ${line.length > 300 ? line.slice(0, 300) + "…" : line}`);
      sidecar.stdin.write(line + "\n");
    },
    requireVersion: true,
    writeVersion: true,
    allowBatch: false,
    onRequest: (method, params) => {
      if (method === "permission/request") return onPermission(params as PermissionRequest);
      throw new Error(`the demo host does not answer ${method}`);
    },
    onNotification: (method, params) => {
      if (method === "session/event") onEvent((params as { event: AgentEvent }).event);
    },
    toRpcError: (e) => ({ code: -32603, message: (e as Error).message }),
    invalidRequest: (reason) => ({ code: -32600, message: reason }),
  });
  const parser = frameParser(256 * 1024 * 1024, {
    onMessage: (value, text) => {
      if (wire) r.note(`  ← ${text.length > 300 ? text.slice(0, 300) + "…" : text}`);
      peer.handle(value);
    },
    onFrameError: (e) => r.note(`demo: bad line from the sidecar: ${e.message}`),
  });
  sidecar.stdout.on("data", (b: Buffer) => parser.push(b));

  try {
    r.step(`▸ session/open example agent (acp) in ${process.cwd()}`);
    const open = await peer.request<OpenResult>("session/open", {
      spec: {
        id: "example",
        lane: "acp",
        command: { program: process.execPath, args: [agent], env: { policy: "sanitized", inherit: ["PATH", "HOME", "TMPDIR"] } },
      },
    });
    r.opened(open, "example agent");
    r.step(`▸ session/prompt ${JSON.stringify(prompt)}`);
    r.turnStarted();
    const outcome = await peer.request<TurnOutcome>("session/prompt", { sessionId: open.sessionId, text: prompt });
    r.turnEnded(outcome);
    r.step("▸ session/close");
    await peer.request("session/close", { sessionId: open.sessionId });
  } catch (e) {
    r.failed(e instanceof RpcResponseError ? { message: e.message, data: e.data } : e, "the demo");
    screen.pause();
    sidecar.stdin.end();
    await exited;
    return 1;
  }
  sidecar.stdin.end();
  const code = await exited;
  r.note(`done in ${((Date.now() - started) / 1000).toFixed(1)} s; the sidecar closed every agent and exited ${code}.`);
  screen.pause();
  return code === 0 ? 0 : 1;
}
