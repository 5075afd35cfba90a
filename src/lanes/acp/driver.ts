// Placeholder until the acp lane lands.
import type { LaneDriver } from "../lane.js";
import { A4aaError } from "../../errors.js";

export const acpDriver: LaneDriver = {
  lane: "acp",
  defaultPermission: () => "readOnly",
  precheck: () => {
    throw new A4aaError("unsupported_selector", "open", "the acp lane is not available in this build");
  },
  open: () => Promise.reject(new A4aaError("unsupported_selector", "open", "the acp lane is not available in this build")),
};
