// Placeholder until the cli lane lands.
import type { LaneDriver } from "../lane.js";
import { A4aaError } from "../../errors.js";

export const cliDriver: LaneDriver = {
  lane: "cli",
  defaultPermission: () => "readOnly",
  precheck: () => {
    throw new A4aaError("unsupported_selector", "open", "the cli lane is not available in this build");
  },
  open: () => Promise.reject(new A4aaError("unsupported_selector", "open", "the cli lane is not available in this build")),
};
