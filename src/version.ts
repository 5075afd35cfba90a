// The package version, read once from package.json (dist/src/version.js → ../../package.json).
import { readFileSync } from "node:fs";

let version: string | undefined;

export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;
  return version;
}
