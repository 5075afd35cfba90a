#!/usr/bin/env node
// The `a4aa` command line.
import { MAIN_HELP, SERVE_HELP } from "./help.js";
import { UsageError, parseArgs } from "./args.js";
import { packageVersion } from "../version.js";

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(MAIN_HELP);
      return command === undefined ? 2 : 0;
    case "--version":
    case "-v":
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    case "serve":
      return (await import("./serve-command.js")).serveCommand(rest);
    case "replay":
      return (await import("./replay-command.js")).replayCommand(rest);
    case "schema":
      return (await import("./schema-command.js")).schemaCommand(rest);
    case "agents":
      return (await import("./agents-command.js")).agentsCommand(rest);
    case "doctor":
      return (await import("./doctor-command.js")).doctorCommand(rest);
    case "demo":
      return (await import("./demo-command.js")).demoCommand(rest);
    case "run":
      return (await import("./run/run-command.js")).runCommand(rest);
    default:
      throw new UsageError(
        command.startsWith("-") ? `unknown option ${command}` : `unknown command ${JSON.stringify(command)}`,
        "a4aa --help",
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`a4aa: ${err.message}. Run '${err.helpCommand}' for usage.\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`a4aa: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);

