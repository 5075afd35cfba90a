// `fs/read_text_file` and `fs/write_text_file` for ACP agents, confined to the session's
// cwd (R-HOSTILE-3). A path is never checked and then opened again by name: the file
// (or, for a write, its directory) is opened once and what the descriptor refers to is
// checked — /proc/self/fd/N names the opened file's real location whatever was renamed
// or swapped since. Writes go to a temp file created through the verified directory's
// descriptor and renamed within it, so they land in that directory even if its name now
// points elsewhere. Only regular files are read or replaced; FIFOs, devices and sockets
// are refused before and after opening (O_NONBLOCK: a FIFO with no writer cannot block).
import { randomBytes } from "node:crypto";
import { constants as C, promises as fsp, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { RpcErrorCode } from "../../errors.js";
import { withTimeout } from "../../supervise/deadline.js";
import { RpcHandlerError } from "../../transport/json-rpc.js";

const INVALID_PARAMS = RpcErrorCode.InvalidParams;
const INTERNAL = RpcErrorCode.InternalError;
const NOT_FOUND = -32002; // ACP's "Resource not found"

/** Most bytes one `fs/read_text_file` answer may carry (R-HOSTILE-2); ask for less with line/limit. */
export const MAX_READ_BYTES = 16 * 1024 * 1024;
/** A file operation not done by then is answered with an error (R-HOSTILE-3). */
export const FS_OP_TIMEOUT_MS = 30_000;
/**
 * File operations one session runs at once: the rest queue. Node's file I/O shares a pool
 * of four threads, so one session can never hold all of them.
 */
export const FS_OPS_PER_SESSION = 2;

const CHUNK = 1 << 20;
const READ_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY;

const viaFd = (fd: number, name?: string) => `/proc/self/fd/${fd}${name === undefined ? "" : `/${name}`}`;

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function kind(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}

function refuseSpecial(st: Stats, shown: unknown): void {
  const k = kind(st);
  if (k) throw new RpcHandlerError(INVALID_PARAMS, `refused: ${String(shown)} is ${k}; only regular files can be read or written`);
}

function fail(e: unknown, verb: string, shown: unknown): never {
  if (e instanceof RpcHandlerError) throw e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") throw new RpcHandlerError(NOT_FOUND, `no such file: ${String(shown)}`);
  throw new RpcHandlerError(INVALID_PARAMS, `cannot ${verb} ${String(shown)}: ${(e as Error).message}`);
}

const toInt = (v: unknown, min: number): number | undefined => (typeof v === "number" && v >= min ? Math.floor(v) : undefined);

export class ConfinedFs {
  private realRoot: Promise<string>;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly root: string) {
    this.realRoot = fsp.realpath(root);
    this.realRoot.catch(() => {});
  }

  async read(params: { path: unknown; line?: unknown; limit?: unknown }): Promise<{ content: string }> {
    return this.bounded("read", params.path, (deadline) => this.doRead(params, deadline));
  }

  async write(params: { path: unknown; content: unknown }): Promise<null> {
    return this.bounded("write", params.path, () => this.doWrite(params));
  }

  /** At most FS_OPS_PER_SESSION at once, each answered within FS_OP_TIMEOUT_MS. */
  private bounded<T>(verb: string, shown: unknown, fn: (deadline: number) => Promise<T>): Promise<T> {
    const deadline = Date.now() + FS_OP_TIMEOUT_MS;
    const run = (async () => {
      while (this.active >= FS_OPS_PER_SESSION) await new Promise<void>((r) => this.waiting.push(r));
      this.active++;
      try {
        // Timed out while queued: the agent was already told it failed, so do nothing.
        if (Date.now() > deadline) throw new RpcHandlerError(INTERNAL, "timed out");
        return await fn(deadline);
      } finally {
        this.active--;
        this.waiting.shift()?.();
      }
    })();
    return withTimeout(
      run,
      FS_OP_TIMEOUT_MS,
      () => new RpcHandlerError(INTERNAL, `cannot ${verb} ${String(shown)}: not done within ${FS_OP_TIMEOUT_MS / 1000} s (is the file system hung?)`),
    );
  }

  private absolute(p: unknown): string {
    if (typeof p !== "string" || !path.isAbsolute(p)) {
      throw new RpcHandlerError(INVALID_PARAMS, `path must be absolute: ${JSON.stringify(p)}`);
    }
    if (p.includes("\0")) throw new RpcHandlerError(INVALID_PARAMS, "path contains a NUL byte");
    return path.resolve(p);
  }

  /** Where the descriptor's file is now (its real path); refused unless inside the root. */
  private async checkInside(fh: FileHandle, shown: unknown): Promise<string> {
    const root = await this.realRoot;
    const real = await fsp.readlink(viaFd(fh.fd));
    if (!inside(root, real)) {
      throw new RpcHandlerError(INVALID_PARAMS, `refused: ${String(shown)} is outside the session's working directory ${this.root}`);
    }
    return real;
  }

  private async doRead(params: { path: unknown; line?: unknown; limit?: unknown }, deadline: number): Promise<{ content: string }> {
    const p = this.absolute(params.path);
    await this.realRoot;
    // Refused before opening when possible: opening a device can have effects of its own.
    refuseSpecial(await fsp.stat(p).catch((e) => fail(e, "read", params.path)), params.path);
    const fh = await fsp.open(p, READ_FLAGS).catch((e) => fail(e, "read", params.path));
    try {
      const st = await fh.stat();
      refuseSpecial(st, params.path);
      await this.checkInside(fh, params.path);
      const line = toInt(params.line, 1) ?? 1;
      const limit = toInt(params.limit, 0);
      if (line === 1 && limit === undefined && st.size > MAX_READ_BYTES) throw tooBig(params.path, st.size);
      return { content: await readLines(fh, line, limit, deadline, params.path) };
    } catch (e) {
      fail(e, "read", params.path);
    } finally {
      await fh.close();
    }
  }

  private async openDir(dir: string, shown: unknown): Promise<FileHandle> {
    const fh = await fsp.open(dir, C.O_RDONLY | C.O_DIRECTORY | C.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") throw new RpcHandlerError(NOT_FOUND, `no such directory: ${path.dirname(String(shown))}`);
      fail(e, "write", shown);
    });
    try {
      await this.checkInside(fh, shown);
      return fh;
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  private async doWrite(params: { path: unknown; content: unknown }): Promise<null> {
    if (typeof params.content !== "string") throw new RpcHandlerError(INVALID_PARAMS, "content must be a string");
    const shown = params.path;
    const p = this.absolute(shown);
    let base = path.basename(p);
    let dir = await this.openDir(path.dirname(p), shown);
    try {
      const lstatIn = (d: FileHandle, name: string) =>
        fsp.lstat(viaFd(d.fd, name)).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? null : fail(e, "write", shown)));
      let st = await lstatIn(dir, base);
      if (st?.isSymbolicLink()) {
        // A symlink is written through (the file it names is replaced), if that is inside.
        const target = await fsp.open(viaFd(dir.fd, base), READ_FLAGS).catch((e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT") throw new RpcHandlerError(INVALID_PARAMS, `refused: ${String(shown)} is a symlink to a missing file`);
          fail(e, "write", shown);
        });
        let real: string;
        try {
          refuseSpecial(await target.stat(), shown);
          real = await this.checkInside(target, shown);
        } finally {
          await target.close();
        }
        await dir.close();
        base = path.basename(real);
        dir = await this.openDir(path.dirname(real), shown);
        st = await lstatIn(dir, base);
        if (st?.isSymbolicLink()) throw new RpcHandlerError(INVALID_PARAMS, `refused: ${String(shown)} changed while it was being written`);
      }
      if (st) refuseSpecial(st, shown);
      const tmpName = `.${base}.a4aa-${randomBytes(6).toString("hex")}.tmp`;
      const tmp = viaFd(dir.fd, tmpName);
      let created = false;
      try {
        const out = await fsp.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, st ? st.mode & 0o7777 : 0o644);
        created = true;
        try {
          await out.writeFile(params.content, "utf8");
        } finally {
          await out.close();
        }
        await fsp.rename(tmp, viaFd(dir.fd, base));
        created = false;
      } catch (e) {
        if (created) await fsp.rm(tmp, { force: true });
        fail(e, "write", shown);
      }
      // The directory written into is the one that was checked; it must still be inside.
      await this.checkInside(dir, shown);
    } finally {
      await dir.close();
    }
    return null;
  }
}

function tooBig(shown: unknown, bytes: number): RpcHandlerError {
  return new RpcHandlerError(
    INVALID_PARAMS,
    `refused: ${String(shown)} is ${bytes} bytes; one read returns at most ${MAX_READ_BYTES} bytes (16 MiB): ask for part of it with line and limit`,
  );
}

/** Lines `line`… (1-based, at most `limit` of them) joined by "\n", read a chunk at a time. */
async function readLines(fh: FileHandle, line: number, limit: number | undefined, deadline: number, shown: unknown): Promise<string> {
  if (limit === 0) return "";
  const buf = Buffer.allocUnsafe(CHUNK);
  const kept: Buffer[] = [];
  let keptBytes = 0;
  const keep = (b: Buffer) => {
    keptBytes += b.length;
    if (keptBytes > MAX_READ_BYTES) throw tooBig(shown, keptBytes);
    kept.push(Buffer.from(b));
  };
  let lineNo = 1;
  let done = 0;
  let pos = 0;
  for (;;) {
    if (Date.now() > deadline) throw new RpcHandlerError(INTERNAL, `cannot read ${String(shown)}: not done within ${FS_OP_TIMEOUT_MS / 1000} s`);
    const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    let i = 0;
    while (i < bytesRead) {
      let nl = buf.indexOf(10, i);
      if (nl >= bytesRead) nl = -1;
      if (lineNo < line) {
        if (nl === -1) break;
        lineNo++;
        i = nl + 1;
        continue;
      }
      keep(buf.subarray(i, nl === -1 ? bytesRead : nl));
      if (nl === -1) break;
      if (++done === limit) return Buffer.concat(kept).toString("utf8");
      keep(buf.subarray(nl, nl + 1));
      i = nl + 1;
    }
  }
  return Buffer.concat(kept).toString("utf8");
}
