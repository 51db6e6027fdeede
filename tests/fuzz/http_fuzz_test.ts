/**
 * Fuzzing the HTTP layer through the real socket with raw bytes: random
 * methods, paths, queries, headers and bodies; byte-level mutations of valid
 * requests (invalid UTF-8, broken framing, truncation); slowloris clients.
 * Invariants (fuzz_rig.ts): an answer (or a close) within the per-request
 * timeout, no 5xx but `internal_error` and documented ones, the envelope
 * intact, and a daemon that keeps answering `/health`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  assertAlive,
  describe,
  type FuzzDaemon,
  fuzzRuns,
  fuzzSeed,
  jsonRequest,
  rawRequest,
  reachesShutdown,
  report,
  REQUEST_TIMEOUT_MS,
  startFuzzDaemon,
} from "./fuzz_rig.ts";
import { delay, healthy, sendRaw } from "./raw_client.ts";

const SEED = fuzzSeed("http_fuzz_test.ts");
const encoder = new TextEncoder();

const METHODS = [
  "GET",
  "POST",
  "DELETE",
  "PUT",
  "PATCH",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "get",
  "Post",
];

/** Ids a request may name: never the running sessions (a fuzzed kill would end them). */
function idArb(daemon: FuzzDaemon): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(daemon.endedId),
    fc.constant("ses_01ZZZZZZZZZZZZZZZZZZZZZZZZ"),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    fc.constantFrom("%00", "%ff", "%", "%2F", "..", ".", "%2e%2e", "a%20b", "ñ", "output"),
    fc.string({ unit: "grapheme", maxLength: 12 }),
  );
}

const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom(
    "",
    " 5 ",
    "1e3",
    "0x10",
    "-0",
    "9".repeat(400),
    "abc",
    "%ff",
    "%",
    "1.5",
    "NaN",
    "running",
    "1",
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

const queryArb = fc.array(
  fc.tuple(
    fc.constantFrom(
      "afterSeq",
      "afterEventId",
      "limit",
      "waitMs",
      "sessionId",
      "status",
      "raw",
      "x",
      "",
      "limit",
    ),
    queryValue,
  ),
  { maxLength: 5 },
).map((pairs) => pairs.length === 0 ? "" : "?" + pairs.map(([k, v]) => `${k}=${v}`).join("&"));

function pathArb(daemon: FuzzDaemon): fc.Arbitrary<string> {
  const id = idArb(daemon);
  const routePath = fc.oneof(
    fc.constantFrom(
      "/api/v1/health",
      "/api/v1/capabilities",
      "/api/v1/api-version",
      "/api/v1/session-policy",
      "/api/v1/sessions/restricted",
      "/api/v1/sessions",
      "/api/v1/events",
      "/api/v1/actions",
      "/api/v1/openapi.json",
      "/api/v1",
      "/api/v2/health",
      "/",
      "*",
      "",
      "//api//v1//health",
      "/api/v1/health/",
      "/API/V1/HEALTH",
    ),
    id.map((s) => `/api/v1/sessions/${s}`),
    id.map((s) => `/api/v1/sessions/${s}/events`),
    id.map((s) => `/api/v1/sessions/${s}/input`),
    id.map((s) => `/api/v1/sessions/${s}/kill`),
    fc.tuple(id, id).map(([s, a]) => `/api/v1/sessions/${s}/artifacts/${a}`),
    fc.array(fc.string({ maxLength: 10 }), { maxLength: 6 }).map((parts) => "/" + parts.join("/")),
    fc.string({ maxLength: 300 }),
  );
  return fc.tuple(routePath, queryArb).map(([path, query]) => path + query)
    .filter((path) => !reachesShutdown(path));
}

const headerArb = fc.oneof(
  fc.constantFrom(
    "Content-Type: application/json",
    "Content-Type: application/json; charset=latin1",
    "Content-Type: text/plain",
    "Content-Type: APPLICATION/JSON",
    "Content-Type:",
    "Transfer-Encoding: chunked",
    "Transfer-Encoding: gzip",
    "Content-Length: 0",
    "Content-Length: -1",
    "Content-Length: 99999999999",
    "Origin: http://evil.example",
    "Host: 127.0.0.1:1",
    "Expect: 100-continue",
    "Connection: keep-alive",
    "Accept: */*",
    "X-Empty:",
  ),
  fc.tuple(
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/),
    fc.string({ maxLength: 40 }).map((v) => v.replace(/[\r\n]/g, " ")),
  ).map(([name, value]) => `${name}: ${value}`),
);

const bodyArb: fc.Arbitrary<Uint8Array | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map((value) => encoder.encode(JSON.stringify(value))),
  fc.uint8Array({ maxLength: 200 }),
  fc.constantFrom(
    new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]),
    new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), // {"\xc3(":1}
    new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM + {}
    encoder.encode('{"action":"svc.automations.list"} trailing'),
    encoder.encode("{".repeat(5000)),
    encoder.encode("[".repeat(100_000) + "]".repeat(100_000)),
  ),
);

Deno.test("http fuzz: raw requests through the socket", async (t) => {
  await using daemon = await startFuzzDaemon();

  await t.step("random methods, paths, queries, headers and bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        pathArb(daemon),
        fc.array(headerArb, { maxLength: 4 }),
        bodyArb,
        async (method, path, headers, body) => {
          const bytes = rawRequest(method, path, body, headers);
          const reply = await daemon.send(describe(bytes), bytes, { closeWrite: true });
          if (reply.status === 0) return; // Closed without an answer: only for broken framing.
          assert.ok(reply.status >= 100 && reply.status < 600, describe(bytes));
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(800) },
    );
    await assertAlive(daemon);
  });

  await t.step("byte-level mutations of valid requests", async () => {
    const valid = [
      jsonRequest("GET", "/api/v1/health"),
      jsonRequest("GET", `/api/v1/sessions/${daemon.endedId}/events?afterSeq=0&limit=5`),
      jsonRequest("POST", "/api/v1/actions", { action: "svc.automations.list" }),
      jsonRequest("POST", "/api/v1/sessions", {
        projectRoot: daemon.project,
        harness: "nope",
        prompt: "hi",
      }),
      jsonRequest("POST", `/api/v1/sessions/${daemon.endedId}/input`, { data: "x" }),
      rawRequest("POST", "/api/v1/actions", undefined, [
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ]),
    ];
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant("flip"),
        at: fc.nat(),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      fc.record({
        kind: fc.constant("insert"),
        at: fc.nat(),
        bytes: fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 8 }),
          fc.constantFrom(
            encoder.encode("\r\n"),
            encoder.encode("\r\n\r\n"),
            new Uint8Array([0]),
            new Uint8Array([0xff, 0xc0]),
            encoder.encode(" "),
            encoder.encode(":"),
          ),
        ),
      }),
      fc.record({
        kind: fc.constant("delete"),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 16 }),
      }),
      fc.record({ kind: fc.constant("truncate"), at: fc.nat() }),
      fc.record({ kind: fc.constant("chunked"), body: fc.uint8Array({ maxLength: 64 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...valid.keys()),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (index, mutations) => {
          let bytes = valid[index];
          for (const m of mutations) bytes = mutate(bytes, m);
          if (reachesShutdown(new TextDecoder().decode(bytes.subarray(0, 200)))) return;
          await daemon.send(describe(bytes), bytes, { closeWrite: true });
        },
      ),
      { seed: SEED + 1, numRuns: fuzzRuns(800) },
    );
    await assertAlive(daemon);
  });

  await t.step("slowloris: trickled, stalled and idle connections never block others", async () => {
    const stalled: Deno.Conn[] = [];
    try {
      // Idle connections that never send a byte.
      for (let i = 0; i < 100; i++) {
        stalled.push(await Deno.connect({ transport: "unix", path: daemon.socket }));
      }
      // Half a request line, headers without their end, a body cut short: then silence.
      const partials = [
        "GET /api/v1/hea",
        "POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n",
        "POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\n\r\n{"action":',
        "POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"act',
      ];
      for (const partial of partials) {
        for (let i = 0; i < 5; i++) {
          const conn = await Deno.connect({ transport: "unix", path: daemon.socket });
          await conn.write(encoder.encode(partial));
          stalled.push(conn);
        }
      }
      // A request trickled one byte every 5 ms completes correctly meanwhile.
      const body = JSON.stringify({ action: "svc.automations.list" });
      const trickled = sendRaw(daemon.socket, jsonRequest("POST", "/api/v1/actions", body), {
        pieceBytes: 1,
        pauseMs: 5,
        timeoutMs: 20_000,
      });
      // Health keeps answering while the stalled clients stay connected: blocked behind them,
      // it would never answer (a hang, caught by the per-request timeout).
      for (let i = 0; i < 10; i++) {
        assert.ok(
          await healthy(daemon.socket, REQUEST_TIMEOUT_MS),
          `health answers 200 beside stalled clients (it hangs after ${REQUEST_TIMEOUT_MS} ms)`,
        );
        await delay(100);
      }
      const reply = await trickled;
      assert.equal(reply.status, 400, reply.text); // The body is a JSON string, not an object.
      const listed = await sendRaw(
        daemon.socket,
        jsonRequest("POST", "/api/v1/actions", { action: "svc.automations.list" }),
        { pieceBytes: 7, pauseMs: 3, timeoutMs: 20_000 },
      );
      assert.equal(listed.status, 200, listed.text);
    } finally {
      for (const conn of stalled) {
        try {
          conn.close();
        } catch { /* closed by the daemon */ }
      }
    }
    await delay(100);
    await assertAlive(daemon);
  });

  report(daemon, "http fuzz");
});

type Mutation =
  | { kind: "flip"; at: number; byte: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "delete"; at: number; length: number }
  | { kind: "truncate"; at: number }
  | { kind: "chunked"; body: Uint8Array };

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = bytes.length === 0 ? 0 : ("at" in m ? m.at % bytes.length : 0);
  switch (m.kind) {
    case "flip": {
      const out = bytes.slice();
      if (out.length > 0) out[at] = m.byte;
      return out;
    }
    case "insert":
      return join(bytes.subarray(0, at), m.bytes, bytes.subarray(at));
    case "delete":
      return join(bytes.subarray(0, at), bytes.subarray(at + m.length));
    case "truncate":
      return bytes.subarray(0, at);
    case "chunked": {
      // A chunk whose declared size may not match what follows.
      const size = (m.body.length + (m.body[0] ?? 0) % 3 - 1).toString(16);
      return join(bytes, encoder.encode(`${size}\r\n`), m.body, encoder.encode("\r\n0\r\n\r\n"));
    }
  }
}

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
