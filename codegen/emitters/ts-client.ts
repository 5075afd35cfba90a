// The TS client's typed stubs (clients/ts/generated.ts): one method per host → sidecar call
// and one handler method per sidecar → host message, typed by generated/ts/types.ts.
import type { ProtocolModel } from "../model.js";
import { pascalCase } from "../model.js";
import { header, type Emitter } from "../emitter.js";
import { buildShapes, commentLines } from "./shapes.js";

const camel = (method: string) => {
  const p = pascalCase(method);
  return p[0].toLowerCase() + p.slice(1);
};

export function tsClientStubs(model: ProtocolModel): string {
  const shapes = buildShapes(model);
  const out: string[] = [];
  out.push(header(model, "//").trimEnd());
  out.push("");
  out.push('import type * as T from "../../generated/ts/types.js";');
  out.push("");
  out.push("/** Per-call options. */");
  out.push("export interface CallOptions {");
  out.push("  /** Stop waiting for the answer (the call rejects with the signal's reason). */");
  out.push("  signal?: AbortSignal;");
  out.push("  /** Stop waiting after this many milliseconds. */");
  out.push("  timeoutMs?: number;");
  out.push("}");
  out.push("");
  out.push("/** The calls a host makes, typed; the runtime provides `request`. */");
  out.push("export abstract class HostMethods {");
  out.push("  protected abstract request(method: string, params: unknown, opts?: CallOptions): Promise<unknown>;");
  for (const m of model.methods.filter((x) => x.direction === "hostToSidecar")) {
    if (m.notification) throw new Error(`ts-client: host → sidecar notification ${m.name} is not supported yet`);
    const params = shapes.byName.get(m.paramsType);
    const optional = params?.kind === "object" && !params.fields.some((f) => f.required);
    out.push("");
    out.push(...commentLines(`\`${m.name}\`: ${m.summary}${m.experimental ? " (experimental)" : ""}`, "  /** ").map((l, i, a) => (i === 0 ? l : l.replace("  /** ", "   * ")) + (i === a.length - 1 ? " */" : "")));
    out.push(`  ${camel(m.name)}(params: T.${m.paramsType}${optional ? " = {}" : ""}, opts?: CallOptions): Promise<T.${m.resultType}> {`);
    out.push(`    return this.request(${JSON.stringify(m.name)}, params, opts) as Promise<T.${m.resultType}>;`);
    out.push("  }");
  }
  out.push("}");
  out.push("");
  const incoming = model.methods.filter((x) => x.direction === "sidecarToHost");
  out.push("/** Receives every message the sidecar sends; a new one in the schema makes the client's router fail to type-check until it is handled. */");
  out.push("export interface SidecarHandler {");
  for (const m of incoming) {
    out.push(`  /** \`${m.name}\`${m.notification ? " (a notification)" : ""}: ${m.summary} */`);
    if (m.notification) out.push(`  ${camel(m.name)}(params: T.${m.paramsType}): void;`);
    else out.push(`  ${camel(m.name)}(params: T.${m.paramsType}): Promise<T.${m.resultType}>;`);
  }
  out.push("}");
  out.push("");
  out.push("/** Hands one sidecar → host message to h: `undefined` for a method the schema does not have, else the result (notifications: `null`). */");
  out.push("export function dispatchSidecar(h: SidecarHandler, method: string, params: unknown): { result: Promise<unknown> | null } | undefined {");
  out.push("  switch (method) {");
  for (const m of incoming) {
    out.push(`    case ${JSON.stringify(m.name)}:`);
    if (m.notification) {
      out.push(`      h.${camel(m.name)}(params as T.${m.paramsType});`);
      out.push("      return { result: null };");
    } else {
      out.push(`      return { result: h.${camel(m.name)}(params as T.${m.paramsType}) };`);
    }
  }
  out.push("  }");
  out.push("  return undefined;");
  out.push("}");
  out.push("");
  const ends = model.methods.filter((m) => m.endsEventStream).map((m) => JSON.stringify(m.name));
  out.push("const ENDS_EVENT_STREAM: ReadonlySet<string> = new Set([" + ends.join(", ") + "]);");
  out.push("");
  out.push("/** Whether a success of `method` ends the event stream of the session its `sessionId` param names (x-ends-event-stream). */");
  out.push("export function endsEventStream(method: string): boolean {");
  out.push("  return ENDS_EVENT_STREAM.has(method);");
  out.push("}");
  return out.join("\n") + "\n";
}

export const tsClientEmitter: Emitter = {
  name: "ts-client",
  emit(model: ProtocolModel) {
    return [{ path: "clients/ts/generated.ts", content: tsClientStubs(model) }];
  },
};
