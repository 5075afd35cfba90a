// Reads the raw text of one top-level member of a JSON object line, so that an echoed id
// can be compared digit for digit (JSON.parse would round a uint64).
export function rawMember(text: string, name: string): string | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  const skipValue = (): void => {
    ws();
    const c = text[i];
    if (c === '"') return skipString();
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === "{") {
          ws();
          skipString();
          ws();
          i++; // ':'
        }
        skipValue();
        ws();
        if (text[i++] === close) return;
      }
    }
    while (i < text.length && !",}] \t\r\n".includes(text[i])) i++;
  };
  ws();
  if (text[i] !== "{") return undefined;
  i++;
  for (;;) {
    ws();
    if (text[i] !== '"') return undefined;
    const k0 = i;
    skipString();
    const key = JSON.parse(text.slice(k0, i)) as string;
    ws();
    i++; // ':'
    ws();
    const v0 = i;
    skipValue();
    if (key === name) return text.slice(v0, i).trim();
    ws();
    if (text[i] !== ",") return undefined;
    i++;
  }
}
