// `fs/read_text_file` and `fs/write_text_file` for ACP agents, confined to the session's
// cwd: paths must be absolute and, with every symlink resolved, inside it. Writes are
// atomic (temp file + rename) and create the file.
import { RpcErrorCode } from "../../errors.js";
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { RpcHandlerError } from "../../transport/json-rpc.js";


const INVALID_PARAMS = RpcErrorCode.InvalidParams;
const NOT_FOUND = -32002; // ACP's "Resource not found"

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export class ConfinedFs {
  private realRoot: Promise<string>;

  constructor(readonly root: string) {
    this.realRoot = fsp.realpath(root);
  }

  /** Resolves `p` (absolute) to its real path and checks it stays inside the root. */
  private async confine(p: unknown, forWrite: boolean): Promise<string> {
    if (typeof p !== "string" || !path.isAbsolute(p)) {
      throw new RpcHandlerError(INVALID_PARAMS, `path must be absolute: ${JSON.stringify(p)}`);
    }
    const root = await this.realRoot;
    const normal = path.resolve(p);
    let real: string;
    try {
      real = await fsp.realpath(normal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || !forWrite) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new RpcHandlerError(NOT_FOUND, `no such file: ${p}`);
        throw new RpcHandlerError(INVALID_PARAMS, `cannot resolve ${p}: ${(e as Error).message}`);
      }
      // A new file: its directory must exist and be inside; a dangling symlink is refused
      // (writing through it would create its target wherever it points).
      const lst = await fsp.lstat(normal).catch(() => null);
      if (lst?.isSymbolicLink()) throw new RpcHandlerError(INVALID_PARAMS, `refused: ${p} is a symlink to a missing file`);
      let dir: string;
      try {
        dir = await fsp.realpath(path.dirname(normal));
      } catch {
        throw new RpcHandlerError(NOT_FOUND, `no such directory: ${path.dirname(p)}`);
      }
      real = path.join(dir, path.basename(normal));
    }
    if (!inside(root, real)) {
      throw new RpcHandlerError(INVALID_PARAMS, `refused: ${p} is outside the session's working directory ${this.root}`);
    }
    return real;
  }

  async read(params: { path: unknown; line?: unknown; limit?: unknown }): Promise<{ content: string }> {
    const p = await this.confine(params.path, false);
    let text: string;
    try {
      text = await fsp.readFile(p, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new RpcHandlerError(code === "ENOENT" ? NOT_FOUND : INVALID_PARAMS, `cannot read ${params.path}: ${(e as Error).message}`);
    }
    const line = typeof params.line === "number" && params.line >= 1 ? Math.floor(params.line) : undefined;
    const limit = typeof params.limit === "number" && params.limit >= 0 ? Math.floor(params.limit) : undefined;
    if (line === undefined && limit === undefined) return { content: text };
    const lines = text.split("\n");
    const start = (line ?? 1) - 1;
    const end = limit === undefined ? lines.length : start + limit;
    return { content: lines.slice(start, end).join("\n") };
  }

  async write(params: { path: unknown; content: unknown }): Promise<null> {
    if (typeof params.content !== "string") throw new RpcHandlerError(INVALID_PARAMS, "content must be a string");
    const p = await this.confine(params.path, true);
    const tmp = path.join(path.dirname(p), `.${path.basename(p)}.a4aa-${randomBytes(6).toString("hex")}.tmp`);
    let mode: number | undefined;
    try {
      mode = (await fsp.stat(p)).mode & 0o7777;
    } catch {
      // new file
    }
    try {
      await fsp.writeFile(tmp, params.content, { encoding: "utf8", mode: mode ?? 0o644, flag: "wx" });
      await fsp.rename(tmp, p);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw new RpcHandlerError(INVALID_PARAMS, `cannot write ${params.path}: ${(e as Error).message}`);
    }
    return null;
  }
}
