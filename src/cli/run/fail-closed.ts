// `a4aa run` with no terminal to ask on: the agent's permission requests are refused.
import type { PermissionRequest, PermissionResponse } from "../../../clients/ts/index.js";
import type { RunOptions } from "./options.js";

/** Permission requests with nobody to ask: refused, and said once. */
export function failClosed(o: RunOptions, warn: (text: string) => void): (req: PermissionRequest) => PermissionResponse {
  let said = false;
  return (req) => {
    if (!said) {
      said = true;
      warn(
        `a4aa run: the agent asked permission (${req.title}) and there is no terminal to ask you, so it was refused, as will be any later request` +
          `${o.options.permission ? "" : ". Pass --permission acceptEdits, readOnly or bypass to let a preset decide"}.\n`,
      );
    }
    return { cancelled: true };
  };
}
