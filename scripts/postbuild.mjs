// After tsc:
// - make the bin entry executable (npm links it; a fresh clone runs it via npx);
// - put the generated validators' own declarations (typed Validator<T>) next to their
//   compiled .js: tsc would otherwise describe the ajv code it copied (untyped).
import { chmodSync, copyFileSync, existsSync } from "node:fs";
const root = new URL("../", import.meta.url);
const bin = new URL("dist/src/cli/main.js", root);
if (existsSync(bin)) chmodSync(bin, 0o755);
for (const dir of ["generated/ts", "generated/acp"]) {
  const from = new URL(`${dir}/validators.d.ts`, root);
  const to = new URL(`dist/${dir}/validators.d.ts`, root);
  if (existsSync(from) && existsSync(new URL(`dist/${dir}/validators.js`, root))) copyFileSync(from, to);
}
