// `import … from "a4aa"`: the a4aa.v1 protocol for TypeScript, generated from the schema:
// every type, the method table (name → params, result, direction) and the ajv validators.
// A host drives the sidecar with `a4aa/client`; the OpenRPC document is `a4aa/schema`.
export type * from "../generated/ts/types.js";
export {
  PROTOCOL,
  SCHEMA_VERSION,
  METHODS,
  isMethodName,
  type Direction,
  type MethodTable,
  type MethodName,
  type MethodInfo,
  type ParamsOf,
  type ResultOf,
  type HostToSidecarMethod,
  type SidecarToHostMethod,
} from "../generated/ts/methods.js";
export { paramsValidators, resultValidators } from "../generated/ts/method-validators.js";
export * as validators from "../generated/ts/validators.js";
