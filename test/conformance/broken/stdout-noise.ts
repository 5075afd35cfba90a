// Broken: prints a log line on stdout after each turn's answer. Caught by R-FRAME-1.
import { runProxy } from "./proxy.js";

runProxy({
  fromSidecar: (m) => {
    if (m.method === undefined && m.result && typeof m.result.stopReason === "string") {
      process.stdout.write(JSON.stringify(m) + "\n");
      process.stdout.write(`a4aa: turn ended (${m.result.stopReason})\n`);
      return false;
    }
  },
});
