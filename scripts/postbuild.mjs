// After tsc: make the bin entry executable (npm links it; a fresh clone runs it via npx).
import { chmodSync, existsSync } from "node:fs";
const bin = new URL("../dist/src/cli/main.js", import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
