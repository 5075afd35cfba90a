#!/usr/bin/env node
// The npm registry reachable here lacks some other-platform binary packages that
// opencode-ai and @teddyzhu/clipboard (a qwen-code optional dependency) list as optional
// dependencies. `npm install` then leaves them out of package-lock.json, and `npm ci` refuses
// the lock ("Missing: … from lock file"). This adds a placeholder entry (version, os, cpu,
// libc; no integrity) for every optional dependency missing from the lock: on a platform
// that does not match, npm skips it without fetching it.
// Run after any `npm install` in test/agents:  node test/agents/lock-placeholders.mjs
import fs from "node:fs";
import path from "node:path";

const lockPath = path.join(path.dirname(new URL(import.meta.url).pathname), "package-lock.json");
const lock = JSON.parse(fs.readFileSync(lockPath, "utf8"));
const pkgs = lock.packages;

function platformOf(name) {
  const n = name.toLowerCase();
  const os = /darwin/.test(n) ? "darwin" : /win32|windows/.test(n) ? "win32" : /linux/.test(n) ? "linux" : null;
  const cpu = /arm64|aarch64/.test(n) ? "arm64" : /x64|x86_64/.test(n) ? "x64" : null;
  const libc = os === "linux" ? (/musl/.test(n) ? "musl" : "glibc") : null;
  return { os, cpu, libc };
}

let added = 0;
for (const [key, entry] of Object.entries(pkgs)) {
  if (!key || !entry.optionalDependencies) continue;
  const base = key.slice(0, key.lastIndexOf("node_modules/"));
  for (const [dep, version] of Object.entries(entry.optionalDependencies)) {
    // npm resolves next to the dependent first, then at the top.
    const nested = `${key}/node_modules/${dep}`;
    const top = `${base}node_modules/${dep}`;
    if (pkgs[nested] || pkgs[top] || pkgs[`node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) {
      console.error(`lock-placeholders: cannot tell the platform of ${dep}; left out`);
      continue;
    }
    const e = { version, cpu: [cpu], ...(libc ? { libc: [libc] } : {}), optional: true, os: [os] };
    pkgs[`node_modules/${dep}`] = e;
    added++;
    console.log(`placeholder: node_modules/${dep}@${version} (${os}/${cpu}${libc ? "/" + libc : ""})`);
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n");
console.log(`lock-placeholders: ${added} added`);
