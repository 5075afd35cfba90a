// Placeholder until the rpc lane lands.
import type { LaneDriver } from "../lane.js";
import { A4aaError } from "../../errors.js";

export const rpcDriver: LaneDriver = {
  lane: "rpc",
  defaultPermission: () => "readOnly",
  precheck: () => {
    throw new A4aaError("unsupported_selector", "open", "the rpc lane is not available in this build");
  },
  open: () => Promise.reject(new A4aaError("unsupported_selector", "open", "the rpc lane is not available in this build")),
};
