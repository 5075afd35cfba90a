// A full garbage collection, after a frame of many MiB went by: the copies a frame passes
// through (read chunks, the joined line, its text, the serialised answer) are garbage by
// then, but V8 may keep them for a long while — and a sidecar's memory should be bounded
// by a small multiple of the 64 MiB frame, not by when the collector gets round to it.
// Only big frames pay for it (a few ms); nothing else calls it.
//
// Off unless the process turns it on: it changes a V8 flag (--expose-gc) and forces
// collections, which is the sidecar's business (`a4aa serve` turns it on) and never a
// library's — the TypeScript client runs in the host's process on the same transport.
import v8 from "node:v8";
import vm from "node:vm";

type Gc = (opts?: { type: "major" | "minor" }) => void;

/** null: off (the default), or not available. */
let gc: Gc | null = null;

/** Turns the collections on for this process (`a4aa serve` only). */
export function enableReclaim(): void {
  if (gc) return;
  try {
    v8.setFlagsFromString("--expose-gc");
    gc = vm.runInNewContext("gc") as Gc;
  } catch {
    gc = null;
  }
}

/** A full collection (when enabled). */
export function reclaimMemory(): void {
  gc?.();
}

/** A young-generation collection (cheap, when enabled): frees the read chunks of a big line already copied. */
export function reclaimYoung(): void {
  gc?.({ type: "minor" });
}

/** Every this many characters written by the sidecar, its RSS is looked at. */
const LOOK_EVERY_CHARS = 32 * 1024 * 1024;
/** Above this RSS, a look runs a full collection: a flood of mid-sized events is garbage V8 would let grow to several times what is live. */
const SOFT_RSS_BYTES = 192 * 1024 * 1024;
let sinceLook = 0;

/** `chars` more characters went out (NdjsonWriter): now and then, collect if memory grew (when enabled). */
export function noteWritten(chars: number): void {
  sinceLook += chars;
  if (sinceLook < LOOK_EVERY_CHARS) return;
  sinceLook = 0;
  if (gc && process.memoryUsage.rss() > SOFT_RSS_BYTES) gc();
}
