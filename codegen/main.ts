// `npm run codegen` writes every generated file; `npm run codegen:check` regenerates in
// memory and fails, naming each stale file, when the committed ones differ.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { loadModel, repoRoot } from "./model.js";
import { emitters } from "./emitters/index.js";
import type { GeneratedFile } from "./emitter.js";

export async function generateAll(source?: string): Promise<GeneratedFile[]> {
  const model = loadModel(source);
  const files: GeneratedFile[] = [];
  for (const e of emitters) files.push(...(await e.emit(model)));
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`two emitters write ${f.path}`);
    seen.add(f.path);
  }
  return files;
}

export function staleFiles(files: GeneratedFile[], root = repoRoot): string[] {
  return files
    .filter((f) => {
      const p = path.join(root, f.path);
      return !existsSync(p) || readFileSync(p, "utf8") !== f.content;
    })
    .map((f) => f.path);
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes("--check");
  // --against DIR: compare with the files under DIR instead of the repository (tests).
  const againstIdx = argv.indexOf("--against");
  const against = againstIdx >= 0 ? path.resolve(argv[againstIdx + 1]) : repoRoot;
  const files = await generateAll();
  if (check) {
    const stale = staleFiles(files, against);
    if (stale.length) {
      process.stderr.write(
        `codegen:check: ${stale.length} generated file(s) differ from the schema:\n` +
          stale.map((s) => `  ${s}\n`).join("") +
          `Run \`npm run codegen\` and commit the result (never edit generated files by hand).\n`,
      );
      return 1;
    }
    process.stdout.write(`codegen:check: ${files.length} generated files are up to date.\n`);
    return 0;
  }
  for (const f of files) {
    const p = path.join(repoRoot, f.path);
    mkdirSync(path.dirname(p), { recursive: true });
    const old = existsSync(p) ? readFileSync(p, "utf8") : null;
    if (old !== f.content) {
      writeFileSync(p, f.content);
      process.stdout.write(`wrote ${f.path}\n`);
    }
  }
  process.stdout.write(`codegen: ${files.length} files from the schema.\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`codegen failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
