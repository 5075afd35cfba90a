// `node dist/bench/memtrace.js prompt|message [MiB]`: the RSS timeline of a fresh a4aa serve
// while it carries one big prompt line or one big agent message (sampled every ms), to see
// which copy of a frame is alive when. An investigation aid for the frames figures.
import { Conn } from "./lib/ndjson.js";
import { MiB, killAll, memBytes, sleep, startSidecar, stop } from "./lib/proc.js";
import { floodSpec } from "./lib/specs.js";
import { nowMs } from "./lib/stats.js";

const [what = "prompt", mib = "64"] = process.argv.slice(2);
const frame = Number(mib) * MiB;
const side = startSidecar();
const conn = new Conn(side.stdin!, side.stdout!);
try {
  const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
  await sleep(200);
  const t0 = nowMs();
  const samples: [number, number][] = [];
  const timer = setInterval(() => {
    try {
      samples.push([nowMs() - t0, memBytes(side.pid!, "VmRSS") / MiB]);
    } catch {
      // gone
    }
  }, 1);
  if (what === "prompt") {
    const id = conn.takeId();
    const answer = conn.expect(id);
    await conn.write(`{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":"${sessionId}","text":"`);
    await conn.write(Buffer.alloc(frame - 256, "p"));
    await conn.write(`"}}\n`);
    await answer;
  } else {
    await conn.ok("session/prompt", { sessionId, text: `big:${frame - 512}` });
  }
  clearInterval(timer);
  const peak = memBytes(side.pid!, "VmHWM") / MiB;
  let last = -1;
  for (const [t, r] of samples) {
    if (Math.abs(r - last) >= 8) {
      process.stdout.write(`${t.toFixed(0).padStart(6)} ms  ${r.toFixed(0).padStart(4)} MiB\n`);
      last = r;
    }
  }
  process.stdout.write(`peak (VmHWM) ${peak.toFixed(0)} MiB\n`);
} finally {
  await stop(side);
  killAll();
}
