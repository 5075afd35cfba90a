// `a4aa demo`: placeholder until the demo host lands.
export async function demoCommand(_argv: string[]): Promise<number> {
  process.stderr.write("a4aa demo: not built yet\n");
  return 1;
}
