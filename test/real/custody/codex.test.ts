// R-CUSTODY-1 with Codex (see case.ts): its base URL goes on the command line as `-c` config
// overrides naming a4aa's model provider (they win over the provider its config.toml names),
// so its key is the session's token. codex app-server (rpc lane, the host allows the command)
// and codex exec (cli lane, bypass: exec cannot ask).
import { custodySuite } from "./case.js";

const upstream = (mockUrl: string) => `${mockUrl}/v1`;
custodySuite({ agent: "codex", id: "codex", lane: "rpc", upstream });
custodySuite({ agent: "codex", id: "codex", lane: "cli", upstream, options: { permission: "bypass" } });
