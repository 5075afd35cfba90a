// The front door of the schema tooling: everything outside src/schema-diff/ (the `a4aa schema`
// command, tests) reaches the diff and the gate through here.
export { DocumentError, parseModel, type ProtocolModel } from "../openrpc/model.js";
export { diffDocuments, diffTexts, type Change, type DiffResult, type Verdict } from "./diff.js";
export { formatDiff, formatGate } from "./format.js";
export { judgeGate } from "./versioning.js";
export { breaksHosts } from "./cli.js";
