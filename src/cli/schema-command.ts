// `a4aa schema`: print the OpenRPC document (what rpc.discover answers).
import { OPENRPC_DOCUMENT_TEXT } from "../../generated/ts/openrpc.js";
import { UsageError, parseArgs } from "./args.js";

export async function schemaCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { help: {} }, "a4aa --help");
  if (flags.help) {
    process.stdout.write("Usage: a4aa schema            print the a4aa.v1 OpenRPC document\n       a4aa schema diff OLD NEW   judge the changes between two versions\n");
    return 0;
  }
  if (positionals[0] === "diff") {
    throw new UsageError("a4aa schema diff is not available in this build", "a4aa --help");
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "a4aa --help");
  process.stdout.write(OPENRPC_DOCUMENT_TEXT.endsWith("\n") ? OPENRPC_DOCUMENT_TEXT : `${OPENRPC_DOCUMENT_TEXT}\n`);
  return 0;
}
