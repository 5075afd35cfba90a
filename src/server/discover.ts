// `rpc.discover` answers with the OpenRPC document, parsed once on first use.
import { OPENRPC_DOCUMENT_TEXT } from "../../generated/ts/openrpc.js";
import type { OpenRpcDocument } from "../../generated/ts/types.js";

let cached: OpenRpcDocument | undefined;

export function discoverDocument(): OpenRpcDocument {
  cached ??= JSON.parse(OPENRPC_DOCUMENT_TEXT) as OpenRpcDocument;
  return cached;
}
