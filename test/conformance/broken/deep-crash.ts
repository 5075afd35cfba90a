// Broken: walks every host message recursively (as a naive log formatter does), so a line
// nested 10^5 deep overflows the stack and the process dies with every session. Caught by
// R-FRAME-8.
import { runProxy } from "./proxy.js";

function depth(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  let d = 0;
  for (const x of Object.values(v as object)) d = Math.max(d, depth(x));
  return d + 1;
}

runProxy({
  fromHost: (m) => {
    depth(m);
    return undefined;
  },
});
