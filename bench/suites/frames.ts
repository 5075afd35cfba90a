// 3. Large frames: a 64 MiB prompt line (host → sidecar → agent), a 64 MiB agent message
// (agent → sidecar → host, then again in the turn's text), each timed against the same
// bytes exchanged with the agent directly; the sidecar's peak RSS (VmHWM of a fresh
// sidecar) against the frame. Then a line far over the 64 MiB limit: the sidecar's RSS
// growth while it discards it must be bounded by the limit, not by the line.
import { Conn, type Msg } from "../lib/ndjson.js";
import { MiB, memBytes, sleep, startSidecar, stop, track, withTimeout } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { FLOOD_AGENT, floodSpec } from "../lib/specs.js";
import { nowMs } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

const LIMIT = 64 * MiB;

/** Writes one request line whose params hold `body` (raw bytes, no escaping needed) at `before`/`after`. */
async function writeBig(conn: Conn, before: string, body: Buffer, after: string): Promise<void> {
  await conn.write(before);
  await conn.write(body);
  await conn.write(after + "\n");
}

async function promptDirect(body: Buffer): Promise<number> {
  const agent = track({ cmd: process.execPath, args: [FLOOD_AGENT] });
  try {
    const conn = new Conn(agent.stdin!, agent.stdout!);
    await conn.ok("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.ok("session/new", { cwd: process.cwd(), mcpServers: [] });
    const id = conn.takeId();
    const answer = conn.expect(id);
    const t0 = nowMs();
    await writeBig(conn, `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"`, body, `"}]}}`);
    const m = await answer;
    if (!m.result) throw new Error(`direct prompt failed: ${JSON.stringify(m).slice(0, 300)}`);
    return nowMs() - t0;
  } finally {
    await stop(agent);
  }
}

async function openFlood(): Promise<{ side: ReturnType<typeof startSidecar>; conn: Conn; sessionId: string }> {
  const side = startSidecar();
  const conn = new Conn(side.stdin!, side.stdout!);
  const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
  return { side, conn, sessionId };
}

async function promptSidecar(body: Buffer): Promise<{ ms: number; peak: number; before: number }> {
  const { side, conn, sessionId } = await openFlood();
  try {
    let chunk = "";
    conn.onNotification = (m) => {
      if (m.params?.event?.type === "messageChunk") chunk = m.params.event.text;
    };
    await sleep(100);
    const before = memBytes(side.pid!, "VmRSS");
    const id = conn.takeId();
    const answer = conn.expect(id);
    const t0 = nowMs();
    await writeBig(conn, `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":"${sessionId}","text":"`, body, `"}}`);
    const m = await answer;
    const ms = nowMs() - t0;
    if (!m.result) throw new Error(`64 MiB prompt failed: ${JSON.stringify(m).slice(0, 300)}`);
    if (chunk !== `ok:${body.length}`) throw new Error(`the agent did not get the whole prompt: ${chunk.slice(0, 100)}`);
    return { ms, peak: memBytes(side.pid!, "VmHWM"), before };
  } finally {
    await stop(side);
  }
}

async function messageDirect(bytes: number): Promise<number> {
  const agent = track({ cmd: process.execPath, args: [FLOOD_AGENT] });
  try {
    const conn = new Conn(agent.stdin!, agent.stdout!);
    let got = 0;
    conn.onNotification = (m) => (got = m.params.update.content.text.length);
    await conn.ok("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.ok("session/new", { cwd: process.cwd(), mcpServers: [] });
    const t0 = nowMs();
    await conn.ok("session/prompt", { sessionId, prompt: [{ type: "text", text: `big:${bytes}` }] });
    if (got !== bytes) throw new Error(`direct: got ${got} of ${bytes} bytes`);
    return nowMs() - t0;
  } finally {
    await stop(agent);
  }
}

async function messageSidecar(bytes: number): Promise<{ ms: number; peak: number; before: number }> {
  const { side, conn, sessionId } = await openFlood();
  try {
    let got = 0;
    conn.onNotification = (m) => {
      if (m.params?.event?.type === "messageChunk") got = m.params.event.text.length;
    };
    await sleep(100);
    const before = memBytes(side.pid!, "VmRSS");
    const t0 = nowMs();
    const outcome = await conn.ok("session/prompt", { sessionId, text: `big:${bytes}` });
    const ms = nowMs() - t0;
    if (got !== bytes || outcome.text.length !== bytes) throw new Error(`sidecar: event ${got}, text ${outcome.text?.length} of ${bytes} bytes`);
    return { ms, peak: memBytes(side.pid!, "VmHWM"), before };
  } finally {
    await stop(side);
  }
}

async function oversize(lineBytes: number): Promise<{ growth: number; before: number; peak: number; ms: number }> {
  const side = startSidecar();
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    let frameError: Msg | undefined;
    let gotError: () => void = () => undefined;
    const errored = new Promise<void>((r) => (gotError = r));
    conn.onUnmatched = (m) => {
      frameError = m;
      gotError();
    };
    await conn.ok("ping", {});
    await sleep(200);
    const before = memBytes(side.pid!, "VmRSS");
    const piece = Buffer.alloc(MiB, "z");
    const t0 = nowMs();
    await conn.write(`{"jsonrpc":"2.0","id":999999,"method":"ping","params":{"pad":"`);
    for (let sent = 0; sent < lineBytes; sent += piece.length) await conn.write(piece);
    await conn.write(`"}}\n`);
    await withTimeout(errored, 60_000, "the frame_too_large answer");
    const ms = nowMs() - t0;
    if (frameError?.error?.data?.code !== "frame_too_large") throw new Error(`expected frame_too_large, got ${JSON.stringify(frameError).slice(0, 300)}`);
    await conn.ok("ping", {}); // the stream goes on
    const peak = memBytes(side.pid!, "VmHWM");
    return { growth: Math.max(0, peak - before), before, peak, ms };
  } finally {
    await stop(side);
  }
}

export async function framesSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const frame = ctx.quick ? 16 * MiB : LIMIT;
  const over = ctx.quick ? 128 * MiB : 1024 * MiB;
  const mib = (b: number) => b / MiB;
  const label = `${mib(frame)} MiB`;
  // The request line holds the text plus ~120 bytes of envelope: stay inside the limit.
  const body = Buffer.alloc(frame - 256, "p");
  const pd = await promptDirect(body);
  const ps = await promptSidecar(body);
  ctx.log(`  ${label} prompt: ${ps.ms.toFixed(0)} ms (direct ${pd.toFixed(0)} ms), peak RSS ${mib(ps.peak).toFixed(0)} MiB`);
  // The agent's update line holds the text plus ~170 bytes: stay inside maxOutputBytes.
  const msgBytes = frame - 512;
  const md = await messageDirect(msgBytes);
  const ms = await messageSidecar(msgBytes);
  ctx.log(`  ${label} message: ${ms.ms.toFixed(0)} ms (direct ${md.toFixed(0)} ms), peak RSS ${mib(ms.peak).toFixed(0)} MiB`);
  const ov = await oversize(over);
  ctx.log(`  ${mib(over)} MiB oversize line: RSS growth ${mib(ov.growth).toFixed(1)} MiB, ${ov.ms.toFixed(0)} ms`);
  const limitName = "64 MiB line limit";
  const rows: Row[] = [
    row({ section: "frames", metric: `${label} prompt line: time`, unit: "ms", value: ps.ms, baseline: pd, baselineName: "same line sent to the agent directly" }),
    row({ section: "frames", metric: `${label} prompt line: peak RSS`, unit: "MiB", value: mib(ps.peak), baseline: mib(frame), baselineName: "the frame", target: { below: 4, text: "< 4×" } }),
    row({ section: "frames", metric: `${label} agent message: time`, unit: "ms", value: ms.ms, baseline: md, baselineName: "same message read from the agent directly" }),
    row({ section: "frames", metric: `${label} agent message: peak RSS`, unit: "MiB", value: mib(ms.peak), baseline: mib(frame), baselineName: "the frame", target: { below: 4, text: "< 4×" } }),
    row({ section: "frames", metric: `${mib(over)} MiB oversize line: RSS growth`, unit: "MiB", value: mib(ov.growth), baseline: 64, baselineName: limitName, target: { below: 1.25, text: "< 1.25×" } }),
    row({ section: "frames", metric: `${mib(over)} MiB oversize line: discard rate`, unit: "MiB/s", value: mib(over) / (ov.ms / 1000) }),
  ];
  return { rows, details: { frame, over, promptDirectMs: pd, promptSidecar: ps, messageDirectMs: md, messageSidecar: ms, oversize: ov } };
}
