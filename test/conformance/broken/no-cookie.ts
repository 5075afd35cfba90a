// Broken: the sidecar cannot read /proc/*/environ, so it finds descendants only through
// their parents (a poll now and then): a daemon whose parent exited is missed at close.
// Caught by R-SUP-5.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { runInProcess } from "./in-process.js";

await runInProcess(() => {
  const read = fs.readFileSync;
  fs.readFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof p === "string" && p.endsWith("/environ")) throw Object.assign(new Error("EACCES (broken on purpose)"), { code: "EACCES" });
    return (read as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readFileSync;
  syncBuiltinESMExports();
});
