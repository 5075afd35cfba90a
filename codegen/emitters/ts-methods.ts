// The typed method table (name → params, result, direction) and the embedded document.
import type { ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";

function methodTable(model: ProtocolModel): string {
  const rows = model.methods.map((m) => {
    const result = m.resultType ? `T.${m.resultType}` : "never";
    return [
      `  /** ${m.summary} */`,
      `  ${JSON.stringify(m.name)}: {`,
      `    params: T.${m.paramsType};`,
      `    result: ${result};`,
      `    direction: ${JSON.stringify(m.direction)};`,
      `    notification: ${m.notification};`,
      `  };`,
    ].join("\n");
  });
  const consts = model.methods.map((m) =>
    [
      `  ${JSON.stringify(m.name)}: {`,
      `    direction: ${JSON.stringify(m.direction)},`,
      `    notification: ${m.notification},`,
      `    paramsType: ${JSON.stringify(m.paramsType)},`,
      `    resultType: ${m.resultType ? JSON.stringify(m.resultType) : "null"},`,
      `    experimental: ${m.experimental},`,
      `    errorStage: ${m.errorStage ? JSON.stringify(m.errorStage) : "null"},`,
      `    endsEventStream: ${m.endsEventStream},`,
      `  },`,
    ].join("\n"),
  );
  return `${header(model, "//")}
import type * as T from "./types.js";

export const PROTOCOL = ${JSON.stringify(model.protocol)};
export const SCHEMA_VERSION = ${JSON.stringify(model.version)};

export type Direction = "hostToSidecar" | "sidecarToHost";

/** Every method of the protocol: its params, result and direction. */
export interface MethodTable {
${rows.join("\n")}
}

export type MethodName = keyof MethodTable;
export type ParamsOf<M extends MethodName> = MethodTable[M]["params"];
export type ResultOf<M extends MethodName> = MethodTable[M]["result"];
type ByDirection<D extends Direction> = {
  [K in MethodName]: MethodTable[K]["direction"] extends D ? K : never;
}[MethodName];
/** Methods the host calls. */
export type HostToSidecarMethod = ByDirection<"hostToSidecar">;
/** Requests and notifications the sidecar sends. */
export type SidecarToHostMethod = ByDirection<"sidecarToHost">;

export interface MethodInfo {
  readonly direction: Direction;
  readonly notification: boolean;
  readonly paramsType: string;
  readonly resultType: string | null;
  readonly experimental: boolean;
  /** x-error-stage: the stage of the method's own errors (host → sidecar methods). */
  readonly errorStage: T.ErrorStage | null;
  /** x-ends-event-stream: success ends the event stream of the session its sessionId names. */
  readonly endsEventStream: boolean;
}

export const METHODS: { readonly [K in MethodName]: MethodInfo } = {
${consts.join("\n")}
};

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(METHODS, name);
}
`;
}

function methodValidators(model: ProtocolModel): string {
  const params = model.methods.map((m) => `  ${JSON.stringify(m.name)}: V.validate${m.paramsType},`);
  const results = model.methods
    .filter((m) => m.resultType)
    .map((m) => `  ${JSON.stringify(m.name)}: V.validate${m.resultType},`);
  return `${header(model, "//")}
import * as V from "./validators.js";
import type { Validator } from "./validators.js";
import type { MethodName, ParamsOf, ResultOf } from "./methods.js";

/** The params validator of each method. */
export const paramsValidators: { readonly [K in MethodName]: Validator<ParamsOf<K>> } = {
${params.join("\n")}
};

type WithResult = { [K in MethodName]: ResultOf<K> extends never ? never : K }[MethodName];

/** The result validator of each method that has a result. */
export const resultValidators: { readonly [K in WithResult]: Validator<ResultOf<K>> } = {
${results.join("\n")}
};
`;
}

export const tsMethodsEmitter: Emitter = {
  name: "ts-methods",
  emit(model: ProtocolModel) {
    return [
      { path: "generated/ts/methods.ts", content: methodTable(model) },
      { path: "generated/ts/method-validators.ts", content: methodValidators(model) },
      {
        path: "generated/ts/openrpc.ts",
        content: `${header(model, "//")}
/** The exact text of ${model.source}, served by \`rpc.discover\` and \`a4aa schema\`. */
export const OPENRPC_DOCUMENT_TEXT = ${JSON.stringify(model.documentText)};
`,
      },
    ];
  },
};
