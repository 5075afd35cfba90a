// AgentSpecs and commands for the bench's agents.
import { DIST, MARKER, MARKER_ENV, ROOT } from "./proc.js";

export const FLOOD_AGENT = `${DIST}bench/agents/flood-agent.js`;
export const LIGHT_AGENT = `${ROOT}bench/agents/light-agent.sh`;
export const ECHO = `${DIST}bench/baselines/echo.js`;
export const RELAY = `${DIST}bench/baselines/relay.js`;

const env = { policy: "sanitized", inherit: ["PATH", "HOME"], set: { [MARKER_ENV]: MARKER } };

export const floodSpec = () => ({ id: "bench-flood", lane: "acp", command: { program: process.execPath, args: [FLOOD_AGENT], env } });
export const lightSpec = () => ({ id: "bench-light", lane: "acp", command: { program: "/bin/sh", args: [LIGHT_AGENT], env } });
