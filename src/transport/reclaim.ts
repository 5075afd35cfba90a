// A full garbage collection, after a frame of many MiB went by: the copies a frame passes
// through (read chunks, the joined line, its text, the serialised answer) are garbage by
// then, but V8 may keep them for a long while — and a sidecar's memory should be bounded
// by a small multiple of the 64 MiB frame, not by when the collector gets round to it.
// Only big frames pay for it (a few ms); nothing else calls it.
import v8 from "node:v8";
import vm from "node:vm";

let gc: Gc | null | undefined;

type Gc = (opts?: { type: "major" | "minor" }) => void;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      gc = vm.runInNewContext("gc") as Gc;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** A full collection. */
export function reclaimMemory(): void {
  collector()?.();
}

/** A young-generation collection (cheap): frees the read chunks of a big line already copied. */
export function reclaimYoung(): void {
  collector()?.({ type: "minor" });
}

