// `a4aa schema`: print the OpenRPC document (what rpc.discover answers).
// `a4aa schema diff OLD NEW`: judge the changes between two versions of it.
import { readFileSync } from "node:fs";
import { OPENRPC_DOCUMENT_TEXT } from "../../generated/ts/openrpc.js";
import { UsageError, parseArgs } from "./args.js";

const USAGE = `Usage: a4aa schema                    print the a4aa.v1 OpenRPC document
       a4aa schema diff OLD NEW [--json] [--exit-code]
                                      judge the changes between two versions of it: each change
                                      with its rule and verdict (breaking for hosts, breaking for
                                      sidecars, warning, compatible, docs); --exit-code exits 1
                                      when a change breaks hosts
`;

export async function schemaCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { help: {}, json: {}, "exit-code": {} }, "a4aa schema --help");
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals[0] === "diff") {
    if (positionals.length !== 3) throw new UsageError("a4aa schema diff needs OLD and NEW files", "a4aa schema --help");
    const { diffTexts, formatDiff, breaksHosts } = await import("../schema-diff/index.js");
    const [oldFile, newFile] = positionals.slice(1);
    const d = diffTexts(readFileSync(oldFile, "utf8"), readFileSync(newFile, "utf8"), oldFile, newFile);
    process.stdout.write(flags.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d));
    return flags["exit-code"] && breaksHosts(d) ? 1 : 0;
  }
  if (flags.json || flags["exit-code"]) throw new UsageError("--json and --exit-code belong to a4aa schema diff", "a4aa schema --help");
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "a4aa schema --help");
  process.stdout.write(OPENRPC_DOCUMENT_TEXT.endsWith("\n") ? OPENRPC_DOCUMENT_TEXT : `${OPENRPC_DOCUMENT_TEXT}\n`);
  return 0;
}
