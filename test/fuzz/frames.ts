// The frames of the framing fuzz (R-FRAME-8): a seeded, deterministic mix of the hostile
// kinds the spec lists, each with the answers it must get, interleaved with valid requests.
// Every frame carries what a correct sidecar answers: nothing, one response with a known id,
// one response with id null, or one response with either (a line whose id can only be read
// by some parsers).

/** mulberry32: small, fast and the same on every machine for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Expect {
  /** Response ids (as canonical JSON text) this frame must be answered with, once each. */
  ids: string[];
  /** Responses with id null this frame must get. */
  nulls: number;
  /** An id the frame may be answered with instead of one null response. */
  idOrNull?: string;
  /** A batch: one array response holding these ids. */
  batch?: string[];
}

export interface Frame {
  kind: string;
  bytes: Buffer;
  expect: Expect;
}

export const LINE_LIMIT = 64 * 1024 * 1024;

const NONE: Expect = { ids: [], nulls: 0 };
const enc = (s: string) => Buffer.from(s, "utf8");
const line = (s: string | Buffer) => Buffer.concat([typeof s === "string" ? enc(s) : s, enc("\n")]);

export interface FrameOptions {
  seed: number;
  /** How many frames in all. */
  count: number;
  /** Frames over the 64 MiB limit (each costs ~64 MiB of pipe traffic). */
  oversized?: number;
  /** Depth of the deeply nested frames (the spec says 10^5). */
  depth?: number;
}

type Maker = (n: number, rnd: () => number) => Frame;

function ping(id: string): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{}}`;
}

function nest(depth: number, open: string, close: string, inner = "1"): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

function randomBytes(rnd: () => number, len: number): Buffer {
  const b = Buffer.alloc(len);
  for (let i = 0; i < len; i++) {
    let v = Math.floor(rnd() * 256);
    if (v === 10) v = 32; // one frame is one line
    b[i] = v;
  }
  return b;
}

/** The hostile kinds, each a maker of one frame numbered `n` (ids are unique per frame). */
function makers(depth: number): Record<string, Maker> {
  return {
    valid: (n) => {
      const id = JSON.stringify(`v${n}`);
      return { kind: "valid", bytes: line(ping(id)), expect: { ids: [id], nulls: 0 } };
    },
    validNumericId: (n) => ({ kind: "validNumericId", bytes: line(ping(String(n))), expect: { ids: [String(n)], nulls: 0 } }),
    crlf: (n) => {
      const id = JSON.stringify(`crlf${n}`);
      return { kind: "crlf", bytes: Buffer.concat([enc(ping(id)), enc("\r\n")]), expect: { ids: [id], nulls: 0 } };
    },
    notification: () => ({ kind: "notification", bytes: line('{"jsonrpc":"2.0","method":"ping","params":{}}'), expect: NONE }),
    unknownNotification: (n) => ({ kind: "unknownNotification", bytes: line(`{"jsonrpc":"2.0","method":"no/such/${n}"}`), expect: NONE }),
    blank: (_n, rnd) => ({ kind: "blank", bytes: line(rnd() < 0.5 ? "" : "   \t"), expect: NONE }),
    truncated: (n, rnd) => {
      const full = ping(JSON.stringify(`t${n}`));
      const cut = 1 + Math.floor(rnd() * (full.length - 2));
      return { kind: "truncated", bytes: line(full.slice(0, cut)), expect: { ids: [], nulls: 1 } };
    },
    garbage: (_n, rnd) => ({ kind: "garbage", bytes: line(randomBytes(rnd, 1 + Math.floor(rnd() * 200))), expect: { ids: [], nulls: 1 } }),
    invalidUtf8: (n) => {
      const b = enc(ping(JSON.stringify(`u${n}-XX`)));
      const at = b.indexOf(enc("XX"));
      b[at] = 0xff;
      b[at + 1] = 0xfe;
      return { kind: "invalidUtf8", bytes: line(b), expect: { ids: [], nulls: 1 } };
    },
    encodedSurrogate: (n) => {
      // UTF-8 bytes of a lone surrogate (ED A0 80) are not valid UTF-8.
      const b = enc(ping(JSON.stringify(`s${n}-XXX`)));
      const at = b.indexOf(enc("XXX"));
      b[at] = 0xed;
      b[at + 1] = 0xa0;
      b[at + 2] = 0x80;
      return { kind: "encodedSurrogate", bytes: line(b), expect: { ids: [], nulls: 1 } };
    },
    escapedSurrogateId: (n) => {
      // A lone surrogate escaped in JSON is valid JSON: the id is echoed.
      const id = `"ls${n}\\ud800"`;
      return { kind: "escapedSurrogateId", bytes: line(ping(id)), expect: { ids: [id], nulls: 0 } };
    },
    bom: (n) => {
      const id = JSON.stringify(`bom${n}`);
      return { kind: "bom", bytes: line(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), enc(ping(id))])), expect: { ids: [], nulls: 0, idOrNull: id } };
    },
    hugeNumberParam: (n) => {
      const id = JSON.stringify(`h${n}`);
      return { kind: "hugeNumberParam", bytes: line(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"n":1e999999,"m":-${"9".repeat(5000)}}}`), expect: { ids: [id], nulls: 0 } };
    },
    hugeNumberId: (n) => {
      const id = `${n}${"7".repeat(40)}`;
      return { kind: "hugeNumberId", bytes: line(ping(id)), expect: { ids: [id], nulls: 0 } };
    },
    duplicateIds: (n) => {
      const id = JSON.stringify(`d${n}`);
      return { kind: "duplicateIds", bytes: Buffer.concat([line(ping(id)), line(ping(id))]), expect: { ids: [id, id], nulls: 0 } };
    },
    deepParams: (n) => {
      const id = JSON.stringify(`dp${n}`);
      return { kind: "deepParams", bytes: line(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":${nest(depth, "[", "]")}}`), expect: { ids: [], nulls: 0, idOrNull: id } };
    },
    deepId: () => ({ kind: "deepId", bytes: line(`{"jsonrpc":"2.0","id":${nest(depth, '{"a":', "}")},"method":"ping"}`), expect: { ids: [], nulls: 1 } }),
    deepBare: (_n, rnd) => ({ kind: "deepBare", bytes: line(rnd() < 0.5 ? nest(depth, "[", "]") : nest(depth, '{"x":', "}")), expect: { ids: [], nulls: 1 } }),
    deepUnclosed: () => ({ kind: "deepUnclosed", bytes: line("[".repeat(depth)), expect: { ids: [], nulls: 1 } }),
    deepInBatch: (n) => {
      const id = JSON.stringify(`db${n}`);
      const deep = `{"jsonrpc":"2.0","id":"dbx${n}","method":"ping","params":${nest(depth, "[", "]")}}`;
      // The whole batch is refused at once (one null error) or answered per member.
      return { kind: "deepInBatch", bytes: line(`[${ping(id)},${deep}]`), expect: { ids: [], nulls: 0, idOrNull: id } };
    },
    notJsonRpc: (_n, rnd) => {
      const values = ["42", '"text"', "null", "true", '{"hello":"world"}', '{"jsonrpc":"1.0","method":"ping"}'];
      return { kind: "notJsonRpc", bytes: line(values[Math.floor(rnd() * values.length)]), expect: { ids: [], nulls: 1 } };
    },
    wrongVersionWithId: (n) => {
      const id = JSON.stringify(`w${n}`);
      return { kind: "wrongVersionWithId", bytes: line(`{"jsonrpc":"1.0","id":${id},"method":"ping"}`), expect: { ids: [id], nulls: 0 } };
    },
    unknownMethod: (n) => {
      const id = JSON.stringify(`m${n}`);
      return { kind: "unknownMethod", bytes: line(`{"jsonrpc":"2.0","id":${id},"method":"no/such"}`), expect: { ids: [id], nulls: 0 } };
    },
    badParams: (n) => {
      const id = JSON.stringify(`p${n}`);
      return { kind: "badParams", bytes: line(`{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":7}}`), expect: { ids: [id], nulls: 0 } };
    },
    unknownSession: (n) => {
      const id = JSON.stringify(`c${n}`);
      return { kind: "unknownSession", bytes: line(`{"jsonrpc":"2.0","id":${id},"method":"session/cancel","params":{"sessionId":"none-${n}"}}`), expect: { ids: [id], nulls: 0 } };
    },
    objectId: (n) => {
      const id = `{"n":${n},"k":["x",null]}`;
      return { kind: "objectId", bytes: line(ping(id)), expect: { ids: [id], nulls: 0 } };
    },
    emptyBatch: () => ({ kind: "emptyBatch", bytes: line("[]"), expect: { ids: [], nulls: 1 } }),
    batch: (n) => {
      const a = JSON.stringify(`ba${n}`);
      const b = JSON.stringify(`bb${n}`);
      return {
        kind: "batch",
        bytes: line(`[${ping(a)},{"jsonrpc":"2.0","method":"ping"},${ping(b)}]`),
        expect: { ids: [], nulls: 0, batch: [a, b] },
      };
    },
    notificationBatch: () => ({ kind: "notificationBatch", bytes: line('[{"jsonrpc":"2.0","method":"ping"}]'), expect: NONE }),
  };
}

/** The frames of one run: the same list for the same options. */
export function* frames(opts: FrameOptions): Generator<Frame> {
  const rnd = prng(opts.seed);
  const all = makers(opts.depth ?? 100_000);
  // Valid requests are half the traffic; the deep ones are rarer (each is ~200 KB).
  const weighted: [string, number][] = [
    ["valid", 40],
    ["validNumericId", 5],
    ["crlf", 4],
    ["notification", 3],
    ["unknownNotification", 2],
    ["blank", 3],
    ["truncated", 6],
    ["garbage", 5],
    ["invalidUtf8", 3],
    ["encodedSurrogate", 2],
    ["escapedSurrogateId", 2],
    ["bom", 2],
    ["hugeNumberParam", 2],
    ["hugeNumberId", 2],
    ["duplicateIds", 2],
    ["deepParams", 0.05],
    ["deepId", 0.05],
    ["deepBare", 0.05],
    ["deepUnclosed", 0.05],
    ["deepInBatch", 0.05],
    ["notJsonRpc", 3],
    ["wrongVersionWithId", 2],
    ["unknownMethod", 2],
    ["badParams", 2],
    ["unknownSession", 2],
    ["objectId", 2],
    ["emptyBatch", 1],
    ["batch", 2],
    ["notificationBatch", 1],
  ];
  const total = weighted.reduce((s, [, w]) => s + w, 0);
  const oversizedAt = new Set<number>();
  for (let i = 0; i < (opts.oversized ?? 0); i++) oversizedAt.add(Math.floor(((i + 1) * opts.count) / ((opts.oversized ?? 0) + 1)));
  // The deep kinds appear at least once each, early, whatever the seed.
  const deepFirst = ["deepParams", "deepId", "deepBare", "deepUnclosed", "deepInBatch"];
  for (let n = 0; n < opts.count; n++) {
    if (oversizedAt.has(n)) {
      yield oversizedFrame(n);
      continue;
    }
    if (n >= 10 && n < 10 + deepFirst.length) {
      yield all[deepFirst[n - 10]](n, rnd);
      continue;
    }
    let r = rnd() * total;
    let kind = weighted[0][0];
    for (const [k, w] of weighted) {
      if ((r -= w) < 0) {
        kind = k;
        break;
      }
    }
    yield all[kind](n, rnd);
  }
}

/** A ping whose line is one byte over the limit: frame_too_large, id null. */
function oversizedFrame(n: number): Frame {
  const b = Buffer.alloc(LINE_LIMIT + 2, 0x78);
  const prefix = `{"jsonrpc":"2.0","id":"big${n}","method":"ping","params":{"pad":"`;
  b.write(prefix, 0, "latin1");
  b.write('"}}', LINE_LIMIT - 2, "latin1");
  b[LINE_LIMIT + 1] = 10;
  return { kind: "oversized", bytes: b, expect: { ids: [], nulls: 1 } };
}
