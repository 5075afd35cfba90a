// `--registry FILE` may be given many times; the shared flag parser keeps one value per
// flag, so the registry files are taken out of argv first.
export function takeRegistryFlags(argv: string[]): { files: string[]; rest: string[] } {
  const files: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === "--registry") {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith("--")) {
        rest.push(a); // the parser reports the missing value
        continue;
      }
      files.push(v);
      i++;
    } else if (a.startsWith("--registry=")) files.push(a.slice("--registry=".length));
    else rest.push(a);
  }
  return { files, rest };
}
