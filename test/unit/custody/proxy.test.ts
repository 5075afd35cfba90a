// R-CUSTODY-1: the egress proxy against a loopback upstream: the real key replaces the
// placeholder, a streamed answer passes chunk by chunk, tokens are per session and die with
// it, bodies are bounded, an unreachable upstream is a 502 with the reason.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { CustodyProxy, TOKEN_KEY_PREFIX } from "../../../src/custody/proxy.js";
import { createLogger } from "../../../src/log.js";

const seen: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let release: () => void = () => undefined;
const upstream = http.createServer((req, res) => {
  let body = "";
  req.on("data", (d: Buffer) => (body += d));
  req.on("end", () => {
    seen.push({ url: req.url!, headers: req.headers, body });
    if (req.url!.endsWith("/stream")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      release = () => res.end("data: last\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
  });
});
await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`;
const proxy = await CustodyProxy.start(createLogger("error"));
after(async () => {
  await proxy.close();
  upstream.close();
});

async function post(base: string, path: string, headers: Record<string, string> = {}, body = "{}") {
  const r = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: r.status, text: await r.text() };
}

test("R-CUSTODY-1: the placeholder is dropped and the real key added in the API's header; the path under the token goes to the upstream's", async () => {
  const tally = { requests: 0, requestBytes: 0, responseBytes: 0 };
  const token = proxy.register({ sessionId: "s-1", upstream: upstreamUrl, keyHeader: "x-api-key", key: "sk-real-1", tallies: [tally] });
  const r = await post(`${proxy.url}/s/${token}`, "/v1/messages?beta=true&key=placeholder", { "x-api-key": "placeholder", authorization: "Bearer placeholder" }, '{"model":"m"}');
  assert.equal(r.status, 200, r.text);
  const got = seen.at(-1)!;
  assert.equal(got.url, "/api/v1/messages?beta=true", "prefix kept, the placeholder query key dropped");
  assert.equal(got.headers["x-api-key"], "sk-real-1");
  assert.equal(got.headers.authorization, undefined, "no other key header goes upstream");
  assert.equal(got.body, '{"model":"m"}');
  assert.deepEqual(tally, { requests: 1, requestBytes: '{"model":"m"}'.length, responseBytes: '{"ok":true}'.length }, "counted as it passed");
});

test("R-CUSTODY-1: the token as the key (a base URL given on the command line carries none): the session is known by its key header", async () => {
  const token = proxy.register({ sessionId: "s-k", upstream: upstreamUrl, keyHeader: "authorization", keyPrefix: "Bearer ", key: "sk-real-k" });
  const r = await post(proxy.url, "/responses?x=1", { authorization: `Bearer ${TOKEN_KEY_PREFIX}${token}` });
  assert.equal(r.status, 200, r.text);
  const got = seen.at(-1)!;
  assert.equal(got.url, "/api/responses?x=1");
  assert.equal(got.headers.authorization, "Bearer sk-real-k");
  assert.equal((await post(proxy.url, "/responses", { "x-api-key": `${TOKEN_KEY_PREFIX}${token}` })).status, 200, "whichever key header the agent uses");
  assert.equal((await post(proxy.url, "/responses", { authorization: `Bearer ${TOKEN_KEY_PREFIX}${"1".repeat(48)}` })).status, 403, "an unknown token as the key");
  assert.equal((await post(proxy.url, "/responses", { authorization: "Bearer sk-someone-elses-key" })).status, 403, "a key that is no token");
  proxy.release("s-k");
  assert.equal((await post(proxy.url, "/responses", { authorization: `Bearer ${TOKEN_KEY_PREFIX}${token}` })).status, 403, "dead with its session");
});

test("R-CUSTODY-1: a Bearer key; a streamed answer reaches the client before the upstream ends it", async () => {
  const token = proxy.register({ sessionId: "s-2", upstream: upstreamUrl, keyHeader: "authorization", keyPrefix: "Bearer ", key: "sk-real-2" });
  const res = await fetch(`${proxy.url}/s/${token}/stream`, { method: "POST", body: "{}" });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /data: first/, "the first event came through while the upstream still holds the response open");
  assert.equal(seen.at(-1)!.headers.authorization, "Bearer sk-real-2");
  release();
  let rest = "";
  for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
  assert.match(rest, /data: last/);
});

test("R-CUSTODY-1: no token, an unknown token, another session's released token: 403, nothing forwarded", async () => {
  const before = seen.length;
  assert.equal((await post(proxy.url, "/v1/messages")).status, 403);
  assert.equal((await post(`${proxy.url}/s/${"0".repeat(48)}`, "/v1/messages")).status, 403);
  const token = proxy.register({ sessionId: "s-3", upstream: upstreamUrl, keyHeader: "x-api-key", key: "k" });
  assert.equal((await post(`${proxy.url}/s/${token}`, "/x")).status, 200);
  proxy.release("s-3");
  const r = await post(`${proxy.url}/s/${token}`, "/x");
  assert.equal(r.status, 403);
  assert.match(r.text, /no session has this token/);
  assert.equal(seen.length, before + 1, "only the request with a live token was forwarded");
  assert.ok(proxy.refused >= 3, "the refusals are counted");
});

test("R-CUSTODY-1: a body over the bound is 413; an unreachable upstream is 502 naming it", async () => {
  const token = proxy.register({ sessionId: "s-4", upstream: upstreamUrl, keyHeader: "x-api-key", key: "k" });
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${proxy.url}/s/${token}/big`, { method: "POST", headers: { "content-length": String(65 * 1024 * 1024) } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    req.write("x");
  });
  assert.equal(status, 413, "declared too long");
  // Not declared (chunked): cut off once past the bound, nothing more forwarded.
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${proxy.url}/s/${token}/big`, { method: "POST" }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", reject);
    const mib = Buffer.alloc(1024 * 1024, "y");
    let sent = 0;
    const pump = () => {
      while (sent < 70) {
        sent++;
        if (!req.write(mib)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
  assert.equal(chunked, 413, "streamed past the bound");
  const dead = proxy.register({ sessionId: "s-5", upstream: "http://127.0.0.1:1/api", keyHeader: "x-api-key", key: "k" });
  const r = await post(`${proxy.url}/s/${dead}`, "/v1/messages");
  assert.equal(r.status, 502);
  assert.match(r.text, /upstream http:\/\/127\.0\.0\.1:1 failed/);
});
