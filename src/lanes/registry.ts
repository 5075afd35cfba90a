// The lane drivers by lane name, loaded on first use (a sidecar that only drives ACP agents never
// loads the CLI drivers or node-pty).
import type { Lane } from "../../generated/ts/types.js";
import type { AnyLaneDriver } from "./lane.js";

const loaders: Record<Lane, () => Promise<AnyLaneDriver>> = {
  acp: async () => (await import("./acp/lane-driver.js")).acpDriver as AnyLaneDriver,
  rpc: async () => (await import("./rpc/lane-driver.js")).rpcDriver as AnyLaneDriver,
  cli: async () => (await import("./cli/lane-driver.js")).cliDriver as AnyLaneDriver,
};

export function laneDriver(lane: Lane): Promise<AnyLaneDriver> {
  return loaders[lane]();
}
