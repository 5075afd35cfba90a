// `a4aa/client`: the TypeScript host client of the a4aa sidecar (protocol a4aa.v1).
export { A4aaClient, type ClientOptions, type ExitStatus, type PermissionHandler } from "./client.js";
export { ClientCore, type CommonOptions, type PromptOptions } from "./core.js";
export { RemoteClient, type ReconnectOptions, type RemoteOptions } from "./remote.js";

/** `connect(url, {token})`: a RemoteClient (see A4aaClient.connect). */
export { connectRemote as connect } from "./remote.js";
export { fileLink, fileResource, image, imageFile } from "./content.js";
export { A4aaError } from "./errors.js";
export { EventStream, TurnEnd, type StreamItem } from "./events.js";
export { currentSelectorValue, offeredValues, optionValues, selectorOption, type SelectorKind } from "./session-state.js";
export { HostMethods, dispatchSidecar, type CallOptions, type SidecarHandler } from "./generated.js";
export type * from "../../generated/ts/types.js";
