// The error facts of the schema (components.errors and ErrorCode's x-error-codes) as
// constants and one constructor per error code, for the sidecar (TS) and the Go and Python
// clients. The hand-written error classes build on these; none keeps a table of its own.
import type { ErrorCodeModel, ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";
import { commentLines } from "./shapes.js";

const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
/** `invalid_params` → `InvalidParams` (the generated enum constants' spelling). */
const pascal = (code: string) => code.split("_").filter(Boolean).map(cap).join("");
const camel = (code: string) => {
  const p = pascal(code);
  return p[0].toLowerCase() + p.slice(1);
};
const lit = (s: string) => JSON.stringify(s);

function codes(model: ProtocolModel): ErrorCodeModel[] {
  if (!model.errorCodes.length) throw new Error(`${model.source}: ErrorCode has no x-error-codes table; the error constructors are generated from it`);
  return model.errorCodes;
}

const summary = (c: ErrorCodeModel) => `\`${c.code}\`: JSON-RPC ${c.rpcCode} "${c.message}"${c.retryable ? ", retryable" : ""}.`;

export function tsErrors(model: ProtocolModel): string {
  const rpc = model.errors.map((e) => `  /** ${e.message} */\n  ${e.name}: ${e.code},`).join("\n");
  const table = codes(model)
    .map((c) => `  ${c.code}: { rpcCode: ${c.rpcCode}, message: ${lit(c.message)}, retryable: ${c.retryable}, endsSession: ${c.endsSession} },`)
    .join("\n");
  const ctors = codes(model)
    .map((c) => `    /** ${summary(c)} */\n    ${camel(c.code)}: (stage: ErrorStage, detail?: string, opts?: ErrorOptions): E => make(${lit(c.code)}, stage, detail, opts),`)
    .join("\n");
  return `${header(model, "//")}
import type { ErrorCode, ErrorData, ErrorStage } from "./types.js";

/** The JSON-RPC error codes the sidecar answers with (components.errors). */
export const RpcErrorCode = {
${rpc}
} as const;

export interface ErrorCodeInfo {
  /** The JSON-RPC \`code\`. */
  readonly rpcCode: number;
  /** The JSON-RPC \`message\`. */
  readonly message: string;
  /** \`retryable\` unless the failure says otherwise. */
  readonly retryable: boolean;
  /** A failed \`session/prompt\` with this code leaves the session nothing but \`session/close\` (or it is gone). */
  readonly endsSession: boolean;
}

/** Every a4aa error code with its JSON-RPC code and message (ErrorCode's x-error-codes). */
export const ERROR_CODES: { readonly [C in ErrorCode]: ErrorCodeInfo } = {
${table}
};

export interface ErrorOptions {
  retryable?: boolean;
  uncertainEffect?: boolean;
  /** The rest of ErrorData a failure can carry (retryAfterMs, resetAt, budget, …). */
  extra?: Omit<ErrorData, "code" | "stage" | "retryable" | "uncertainEffect" | "detail">;
}

export type ErrorMaker<E> = (code: ErrorCode, stage: ErrorStage, detail?: string, opts?: ErrorOptions) => E;

/** One constructor per error code, over the runtime's error class. */
export function errorConstructors<E>(make: ErrorMaker<E>) {
  return {
${ctors}
  };
}
`;
}

export function goErrors(model: ProtocolModel): string {
  const out: string[] = [header(model, "//").trimEnd(), "", "package a4aa", ""];
  out.push("// The JSON-RPC error codes the sidecar answers with (components.errors).");
  out.push("const (");
  for (const e of model.errors) out.push(`\t// RPCCode${e.name}: ${e.message}.`, `\tRPCCode${e.name} = ${e.code}`);
  out.push(")", "");
  out.push("// ErrorCodeInfo is what the schema says of an error code: its JSON-RPC code and message.");
  out.push("type ErrorCodeInfo struct {");
  out.push("\tRPCCode     int");
  out.push("\tMessage     string");
  out.push("\tRetryable   bool");
  out.push("\tEndsSession bool");
  out.push("}", "");
  out.push("// ErrorCodes holds every error code of the schema (ErrorCode's x-error-codes).");
  out.push("var ErrorCodes = map[ErrorCode]ErrorCodeInfo{");
  // Padded as gofmt aligns a map literal's values.
  const width = Math.max(...codes(model).map((c) => `ErrorCode${pascal(c.code)}:`.length));
  for (const c of codes(model)) {
    out.push(`\t${`ErrorCode${pascal(c.code)}:`.padEnd(width)} {RPCCode: ${c.rpcCode}, Message: ${lit(c.message)}, Retryable: ${c.retryable}, EndsSession: ${c.endsSession}},`);
  }
  out.push("}", "");
  for (const c of codes(model)) {
    const fn = `New${pascal(c.code)}Error`;
    out.push(...commentLines(`${fn} makes the ${summary(c)}`, "// "));
    out.push(`func ${fn}(stage ErrorStage, detail string) *Error {`);
    out.push(`\treturn newError(ErrorCode${pascal(c.code)}, stage, detail)`);
    out.push("}", "");
  }
  return out.join("\n").trimEnd() + "\n";
}

export function pythonErrors(model: ProtocolModel): string {
  const out: string[] = [header(model, "#").trimEnd()];
  out.push('"""The error facts of the schema: JSON-RPC codes, every error code\'s JSON-RPC code and');
  out.push('message, and one constructor per error code."""', "");
  out.push("from __future__ import annotations", "");
  out.push("from typing import Dict, NamedTuple, Optional", "");
  out.push("from .errors import A4aaError", "");
  out.push("# The JSON-RPC error codes the sidecar answers with (components.errors).");
  for (const e of model.errors) out.push(`RPC_${pascal(e.name).replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()} = ${e.code}`);
  out.push("", "");
  out.push("class ErrorCodeInfo(NamedTuple):");
  out.push('    """What the schema says of an error code."""', "");
  out.push("    rpc_code: int");
  out.push("    message: str");
  out.push("    retryable: bool");
  out.push("    ends_session: bool", "");
  out.push("", "ERROR_CODES: Dict[str, ErrorCodeInfo] = {");
  for (const c of codes(model)) out.push(`    ${lit(c.code)}: ErrorCodeInfo(${c.rpcCode}, ${lit(c.message)}, ${c.retryable ? "True" : "False"}, ${c.endsSession ? "True" : "False"}),`);
  out.push("}", '"""Every error code of the schema (ErrorCode\'s x-error-codes)."""', "");
  out.push("", "def _make(code: str, stage: str, detail: Optional[str], uncertain_effect: bool) -> A4aaError:");
  out.push("    info = ERROR_CODES[code]");
  out.push("    return A4aaError(info.rpc_code, info.message, code=code, stage=stage, retryable=info.retryable, uncertain_effect=uncertain_effect, detail=detail)");
  for (const c of codes(model)) {
    out.push("", "");
    out.push(`def ${c.code}_error(stage: str, detail: Optional[str] = None, *, uncertain_effect: bool = False) -> A4aaError:`);
    out.push(`    """The ${summary(c)}"""`);
    out.push(`    return _make(${lit(c.code)}, stage, detail, uncertain_effect)`);
  }
  return out.join("\n").trimEnd() + "\n";
}

export const errorsEmitter: Emitter = {
  name: "errors",
  emit: (model) => [
    { path: "generated/ts/errors.ts", content: tsErrors(model) },
    { path: "clients/go/errors_gen.go", content: goErrors(model) },
    { path: "clients/python/src/a4aa/_generated_errors.py", content: pythonErrors(model) },
  ],
};
