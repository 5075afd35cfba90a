// The last resort (R-HOSTILE-4): an exception nothing caught, or a rejection nobody
// handled, is logged and the sidecar keeps serving its other sessions instead of exiting
// with all of them. Hooks (the lanes, later) see the fault first, to fail the session whose
// input caused it.
import type { Logger } from "../log.js";

/** Sees a fault nothing else caught; returns true when it has dealt with it (e.g. failed its session). */
export type FaultHook = (error: unknown, origin: "uncaughtException" | "unhandledRejection") => boolean | void;

const hooks = new Set<FaultHook>();

/** Adds a hook; returns its removal. */
export function onFault(hook: FaultHook): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Installs the process-wide handlers; returns their removal. */
export function installLastResort(logger: Logger): () => void {
  const handle = (origin: "uncaughtException" | "unhandledRejection") => (error: unknown) => {
    let taken = false;
    for (const h of [...hooks]) {
      try {
        if (h(error, origin)) taken = true;
      } catch {
        /* a hook must not make it worse */
      }
    }
    const text = error instanceof Error ? (error.stack ?? error.message) : safeText(error);
    logger.error(`${origin}${taken ? " (its session was failed)" : ""}: ${text} — the sidecar keeps serving; please report this as a bug`);
  };
  const onException = handle("uncaughtException");
  const onRejection = handle("unhandledRejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}

function safeText(v: unknown): string {
  try {
    return String(v);
  } catch {
    return "(a value that cannot be shown)";
  }
}
