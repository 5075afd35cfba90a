// `--registry FILE` may be given many times; the shared flag parser keeps one value per
// flag, so the registry files are taken out of argv first.
/** `missing`: a `--registry` without its FILE (the caller reports the usage error). */
export function takeRegistryFlags(argv: string[]): { files: string[]; rest: string[]; missing: boolean } {
  const files: string[] = [];
  const rest: string[] = [];
  let missing = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === "--registry") {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith("--")) {
        missing = true;
        continue;
      }
      files.push(v);
      i++;
    } else if (a.startsWith("--registry=")) files.push(a.slice("--registry=".length));
    else rest.push(a);
  }
  return { files, rest, missing };
}
