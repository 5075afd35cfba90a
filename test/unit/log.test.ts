import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createLogger } from "../../src/log.js";

const LOG = new URL("../../src/log.js", import.meta.url).href;
const LAST_RESORT = new URL("../../src/server/last-resort.js", import.meta.url).href;

const epipe = () => Object.assign(new Error("write EPIPE"), { code: "EPIPE" });

test("R-HOSTILE-4: a log write that throws EPIPE ends logging: no throw, no retry, the failure reported once", () => {
  let writes = 0;
  const failures: Error[] = [];
  const logger = createLogger("debug", () => {
    writes++;
    throw epipe();
  });
  logger.onFailed((e) => failures.push(e));
  assert.doesNotThrow(() => logger.error("first"));
  assert.doesNotThrow(() => logger.warn("second"));
  assert.doesNotThrow(() => logger.debug("third"));
  assert.equal(writes, 1, "nothing is written after the first failure");
  assert.equal(failures.length, 1);
  assert.equal((failures[0] as NodeJS.ErrnoException).code, "EPIPE");
  assert.equal(logger.enabled("error"), false);
  // A watcher added late hears of it at once.
  let late: Error | undefined;
  logger.onFailed((e) => (late = e));
  assert.equal(late, failures[0]);
});

test("R-HOSTILE-4: a log write that fails later (the stream's 'error') ends logging the same way", () => {
  let writes = 0;
  let failLater: ((e: Error) => void) | undefined;
  const logger = createLogger("info", (_line, fail) => {
    writes++;
    failLater = fail;
  });
  let failures = 0;
  logger.onFailed(() => failures++);
  logger.info("one");
  failLater!(epipe());
  failLater!(epipe());
  logger.info("two");
  assert.equal(writes, 1);
  assert.equal(failures, 1);
  assert.ok(logger.failed);
});

test("R-HOSTILE-4: a real stderr whose reader is gone: logging stops, no uncaught exception, no loop, the process ends by itself", async () => {
  // The child logs through the default logger with the last resort installed (as a4aa serve
  // does); its stderr's reader is closed at once. Before the fix the EPIPE became an
  // uncaught exception whose report went to the same stderr: a loop that never ended.
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG)});
    const { installLastResort } = await import(${JSON.stringify(LAST_RESORT)});
    const logger = createLogger("debug");
    installLastResort(logger);
    let failures = 0;
    logger.onFailed(() => failures++);
    let n = 0;
    const timer = setInterval(() => {
      logger.error("line " + n + " " + "x".repeat(1000));
      if (++n === 200) {
        clearInterval(timer);
        process.stdout.write(JSON.stringify({ failures, code: logger.failed && logger.failed.code }));
      }
    }, 1);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.destroy();
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.once("exit", (c, s) => r([c, s])));
  clearTimeout(timer);
  assert.equal(signal, null, "the child had to be killed: it did not end by itself");
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(out), { failures: 1, code: "EPIPE" });
});
