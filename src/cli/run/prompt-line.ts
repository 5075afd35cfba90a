// The interactive session's prompt line: node's readline with this session's history (newest
// first, shared across prompts), what was typed during the turn put back, and Ctrl-C told
// apart from Ctrl-D.
import { createInterface } from "node:readline";

/** One line typed at `prompt`; "eof" on Ctrl-D, "interrupt" on Ctrl-C. Adds it to `history`. */
export function readPromptLine(history: string[], prompt: string, typedAhead: string): Promise<string | "eof" | "interrupt"> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true, history: [...history], historySize: 200, removeHistoryDuplicates: true });
    let settled = false;
    const settle = (v: string | "eof" | "interrupt") => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(v);
    };
    rl.on("line", (l) => {
      if (l.trim()) history.unshift(l);
      settle(l);
    });
    rl.on("SIGINT", () => {
      process.stdout.write("\n");
      settle("interrupt");
    });
    rl.on("close", () => settle("eof"));
    rl.setPrompt(prompt);
    rl.prompt();
    if (typedAhead) rl.write(typedAhead);
  });
}
