/**
 * Structural fuzzing of every route with a body and every action, through
 * the real socket: valid requests mutated at a random place (wrong types,
 * huge and odd numbers, deep nesting, enormous strings, lone surrogates,
 * duplicate and unknown keys, `__proto__`), whole bodies replaced, and
 * random queries on the read routes. Invariants: fuzz_rig.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  assertAlive,
  type FuzzDaemon,
  fuzzRuns,
  fuzzSeed,
  type Json,
  jsonRequest,
  rawRequest,
  report,
  REQUEST_TIMEOUT_MS,
  startFuzzDaemon,
} from "./fuzz_rig.ts";

const SEED = fuzzSeed("json_fuzz_test.ts");
const DIGEST = "sha256:" + "a".repeat(64);

/** JSON text that JSON.stringify cannot produce, spliced in through a placeholder. */
const RAW_FRAGMENTS = [
  "1e400",
  "-1e400",
  "-0",
  "123456789012345678901234567890",
  "9007199254740993",
  "1e-400",
  '"\\ud800"',
  '"\\udfff\\ud800x"',
  '"\\u0000"',
  '"' + "\\u0041".repeat(2000) + '"',
  "[".repeat(20_000) + "]".repeat(20_000),
  '{"a":'.repeat(5000) + "1" + "}".repeat(5000),
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '"' + "x".repeat(900_000) + '"',
];

/** Byte sequences that are never valid UTF-8 (a lone byte, a surrogate, past U+10FFFF, overlong). */
const INVALID_UTF8 = [
  [0xff],
  [0xc3],
  [0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
];

/** Odd values for any member. */
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    Number.MAX_SAFE_INTEGER + 2,
    1e308,
    -1e308,
    "",
    " ",
    "\n",
    "SIGHUP",
    "../../etc",
    "/",
    "/etc/passwd",
    "RRULE:",
    "FREQ=DAILY;BYHOUR=25",
    "FREQ=DAILY;BYHOUR=9;BYHOUR=9",
    "2030-01-01T00:00:00Z",
    "0000-00-00T00:00:00Z",
    [],
    {},
    [null],
    { version: 1 },
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ minLength: 60, maxLength: 70 }),
  fc.string({ minLength: 160, maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.nat({ max: RAW_FRAGMENTS.length - 1 }).map((index) => raw(index)),
  fc.integer({ min: 4000, max: 300_000 }).map((n) => "z".repeat(n)),
);

/** A placeholder that `serialize` replaces with raw JSON text. */
function raw(index: number): string {
  return `\u0000RAW${index}\u0000`;
}

/** JSON.stringify, with placeholders replaced by their raw fragments. */
function serialize(value: unknown): string {
  return JSON.stringify(value).replace(
    /"\\u0000RAW(\d+)\\u0000"/g,
    (_, index) => RAW_FRAGMENTS[Number(index)],
  );
}

type Mutation =
  | { kind: "replace"; at: number; value: unknown }
  | { kind: "delete"; at: number }
  | { kind: "add"; at: number; key: string; value: unknown }
  | { kind: "duplicate"; key: string; value: unknown; first: boolean }
  | { kind: "body"; value: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("replace"), at: fc.nat(), value: nastyValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete"), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("add"),
      at: fc.nat(),
      key: fc.oneof(
        fc.constantFrom("__proto__", "constructor", "sessionPolicy", "contextAdmission", "extra"),
        fc.string({ maxLength: 12 }),
      ),
      value: nastyValue,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("duplicate"),
      key: fc.constantFrom("action", "id", "data", "signal", "harness", "prompt", "definition"),
      value: nastyValue,
      first: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("body"), value: nastyValue }) },
);

/** The longest `waitMs` the events routes take (D8). */
const LONG_POLL_MS = 30_000;

/** The seq of the last event of a session's log, read page by page from `eventsPath`. */
async function lastSeq(daemon: FuzzDaemon, eventsPath: string): Promise<number> {
  let cursor = 0;
  for (let more = true; more;) {
    const page = await daemon.send(
      "read the log",
      rawRequest("GET", `${eventsPath}?afterSeq=${cursor}&limit=1000`),
    );
    assert.equal(page.status, 200, page.text);
    cursor = (page.body as Json).nextCursor.afterSeq;
    more = (page.body as Json).hasMore;
  }
  return cursor;
}

/** Paths to every object and array inside `value` (the root is []). */
function containers(
  value: unknown,
  path: Array<string | number> = [],
): Array<Array<string | number>> {
  if (value === null || typeof value !== "object") return [];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value as Json);
  return [path, ...entries.flatMap(([key, child]) => containers(child, [...path, key]))];
}

/** Paths to every member inside `value`. */
function members(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== "object") return [];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value as Json);
  return entries.flatMap(([key, child]) => [[...path, key], ...members(child, [...path, key])]);
}

function parentOf(root: Json, path: Array<string | number>): Json {
  let node: Json = root;
  for (const key of path.slice(0, -1)) node = node[key];
  return node;
}

/** Applies mutations to a deep copy of `base`; returns the body text. */
function mutateBody(base: unknown, mutations: Mutation[]): string {
  let body: unknown = structuredClone(base);
  const textEdits: Array<(text: string) => string> = [];
  for (const m of mutations) {
    // Values are copied in: fast-check reuses them across runs and shrinks, and inserting the
    // same object twice (or into itself) would build a cycle no JSON text has.
    if (m.kind === "body") {
      body = structuredClone(m.value);
      continue;
    }
    if (m.kind === "duplicate") {
      const pair = `${JSON.stringify(m.key)}:${serialize(m.value)}`;
      textEdits.push((text) =>
        !text.startsWith("{")
          ? text
          : m.first
          ? `{${pair}${text === "{}" ? "" : ","}${text.slice(1)}`
          : `${text.slice(0, -1)}${text === "{}" ? "" : ","}${pair}}`
      );
      continue;
    }
    if (m.kind === "add") {
      const targets = containers(body).filter((p) => {
        const node = p.length === 0 ? body : parentOf(body as Json, [...p, ""])[p.at(-1)!];
        return node !== null && typeof node === "object" && !Array.isArray(node);
      });
      if (targets.length === 0) continue;
      const path = targets[m.at % targets.length];
      const node = path.length === 0
        ? body as Json
        : parentOf(body as Json, [...path, ""])[path.at(-1)!];
      Object.defineProperty(node, m.key, {
        value: structuredClone(m.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const paths = members(body);
    if (paths.length === 0) continue;
    const path = paths[m.at % paths.length];
    const parent = parentOf(body as Json, path);
    const key = path.at(-1)!;
    if (m.kind === "replace") parent[key] = structuredClone(m.value);
    else if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  }
  let text = serialize(body);
  for (const edit of textEdits) text = edit(text);
  return text;
}

function definition(id: string, project: string): Json {
  return {
    schemaVersion: 1,
    id,
    name: "Fuzzed routine",
    status: "PAUSED",
    rrule: "FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9,17",
    timezone: "local",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 5,
    runtime: "true",
    prompt: "fuzz",
    cwd: project,
    model: "m",
    familiarId: "f",
    tags: ["a", "b"],
    isolation: "none",
    outputTarget: { kind: "inbox" },
  };
}

const contextAdmission = {
  version: 1,
  sources: [{ kind: "file", ref: "README.md", digest: DIGEST }],
};

/** Every route with a body and every action, each with a valid request to mutate. */
function targets(daemon: FuzzDaemon): Array<{ name: string; path: string; base: Json }> {
  const action = (name: string, fields: Json = {}) => ({
    name,
    path: "/api/v1/actions",
    base: { action: name, origin: "fuzz", intentId: "i-1", ...fields },
  });
  return [
    {
      name: "launch",
      path: "/api/v1/sessions",
      base: {
        projectRoot: daemon.project,
        harness: "true",
        prompt: "hello",
        cwd: ".",
        model: "m",
        title: "t",
        familiarId: "f",
      },
    },
    {
      name: "launch+contextAdmission",
      path: "/api/v1/sessions",
      base: { projectRoot: daemon.project, harness: "true", prompt: "hi", contextAdmission },
    },
    { name: "input", path: `/api/v1/sessions/${daemon.sinkId}/input`, base: { data: "hello\n" } },
    {
      name: "input+contextAdmission",
      path: `/api/v1/sessions/${daemon.sinkId}/input`,
      base: { data: "x", contextAdmission },
    },
    {
      name: "input (ended)",
      path: `/api/v1/sessions/${daemon.endedId}/input`,
      base: { data: "x" },
    },
    {
      name: "kill (ended)",
      path: `/api/v1/sessions/${daemon.endedId}/kill`,
      base: { signal: "SIGTERM" },
    },
    { name: "kill (unknown)", path: "/api/v1/sessions/ses_nope/kill", base: { signal: "SIGKILL" } },
    {
      name: "restricted",
      path: "/api/v1/sessions/restricted",
      base: {
        profile: "read-only",
        harness: "claude",
        cwd: "/tmp",
        prompt: "p",
        policyDigest: DIGEST,
        expiresAt: "2030-01-01T00:00:00Z",
      },
    },
    action("svc.capabilities.refresh"),
    action("svc.automations.list"),
    action("svc.automations.get", { id: "fuzz-a" }),
    action("svc.automations.create", { definition: definition("fuzz-new", daemon.project) }),
    action("svc.automations.update", { definition: definition("fuzz-a", daemon.project) }),
    action("svc.automations.delete", { id: "fuzz-gone" }),
    action("svc.automations.tick"),
    action("svc.automations.runs", { id: "fuzz-a", limit: 5 }),
    action("svc.automations.run", { id: "fuzz-a", cwd: daemon.project }),
    action("svc.automations.import"),
    action("svc.automations.health", { id: "fuzz-a" }),
    action("svc.nope"),
  ];
}

Deno.test("json fuzz: mutated bodies on every route and action", async (t) => {
  await using daemon = await startFuzzDaemon();
  const created = await daemon.send(
    "create fuzz-a",
    jsonRequest("POST", "/api/v1/actions", {
      action: "svc.automations.create",
      definition: definition("fuzz-a", daemon.project),
    }),
  );
  assert.equal(created.status, 200, created.text);
  const gone = await daemon.send(
    "create fuzz-gone",
    jsonRequest("POST", "/api/v1/actions", {
      action: "svc.automations.create",
      definition: definition("fuzz-gone", daemon.project),
    }),
  );
  assert.equal(gone.status, 200, gone.text);
  const all = targets(daemon);

  await t.step("valid requests pass (the bases are right)", async () => {
    for (const target of all) {
      const reply = await daemon.send(
        target.name,
        rawRequest("POST", target.path, JSON.stringify(target.base)),
      );
      const expected = target.name.includes("contextAdmission")
        ? 503
        : target.name === "launch"
        ? 201
        : target.name === "restricted" || target.name === "input (ended)" ||
            target.name === "kill (ended)"
        ? 409
        : target.name === "kill (unknown)"
        ? 404
        : target.name === "svc.nope"
        ? 400
        : 200;
      assert.equal(reply.status, expected, `${target.name}: ${reply.text.slice(0, 300)}`);
    }
  });

  await t.step("mutated bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: all.length - 1 }),
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        fc.option(fc.record({ at: fc.nat(), bytes: fc.constantFrom(...INVALID_UTF8) }), {
          freq: 4,
        }),
        async (index, mutations, corruption) => {
          const target = all[index];
          const text = mutateBody(target.base, mutations);
          let body = new TextEncoder().encode(text);
          if (corruption !== null) {
            // Invalid UTF-8 inside the body (within a string when the cut lands there).
            const at = corruption.at % (body.length + 1);
            body = new Uint8Array([
              ...body.subarray(0, at),
              ...corruption.bytes,
              ...body.subarray(at),
            ]);
          }
          const what = `${target.name} POST ${target.path} ${text.slice(0, 300)}` +
            (corruption ? ` + bytes ${corruption.bytes} at ${corruption.at}` : "");
          const bytes = rawRequest("POST", target.path, body);
          const reply = await daemon.send(what, bytes);
          assert.notEqual(reply.status, 0, `${what}: closed without an answer`);
          const limit = target.path.endsWith("/restricted") ? 64 * 1024 : 1024 * 1024;
          if (body.length > limit) {
            assert.equal(reply.status, 413, what);
          } else if (corruption !== null) {
            assert.equal(reply.status, 400, `${what}: invalid UTF-8 → ${reply.text.slice(0, 200)}`);
          }
        },
      ),
      { seed: SEED, numRuns: fuzzRuns(1200) },
    );
    await assertAlive(daemon);
  });

  await t.step("random queries on the read routes", async () => {
    const ids = fc.oneof(
      fc.constantFrom(daemon.endedId, "ses_nope", "", "%00", "%ff", "a%2Fb"),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
    );
    const value = fc.oneof(
      fc.integer({ min: -10, max: 5000 }).map(String),
      fc.constantFrom("", "1e9", "9".repeat(30), "-0", " 3", "0x1", "running", "orphaned", "1"),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    const query = fc.dictionary(
      fc.constantFrom("afterSeq", "afterEventId", "limit", "waitMs", "status", "sessionId", "raw"),
      value,
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("events", "sessionEvents", "sessions", "session", "artifact"),
        ids,
        query,
        async (route, id, params) => {
          const search = new URLSearchParams(params).toString().replace(/%25/g, "%");
          const path = {
            events: `/api/v1/events?sessionId=${id}&${search}`,
            sessionEvents: `/api/v1/sessions/${id}/events?${search}`,
            sessions: `/api/v1/sessions?${search}`,
            session: `/api/v1/sessions/${id}?${search}`,
            artifact: `/api/v1/sessions/${id}/artifacts/output?${search}`,
          }[route];
          const reply = await daemon.send(`GET ${path}`, rawRequest("GET", path));
          assert.notEqual(reply.status, 0, `GET ${path}: closed without an answer`);
          if (reply.status === 200 && route !== "sessions" && route !== "session") {
            assert.ok(Array.isArray((reply.body as Json).events) || route === "artifact");
          }
        },
      ),
      { seed: SEED + 1, numRuns: fuzzRuns(600) },
    );
    await assertAlive(daemon);
  });

  await t.step(
    "grammar-built rrules: create, health, tick and delete never fail the server",
    async () => {
      const hour = fc.oneof(fc.integer({ min: 0, max: 23 }), fc.integer({ min: -1, max: 99 }));
      const hours = fc.array(hour, { minLength: 0, maxLength: 4 }).map((list) => list.join(","));
      const day = fc.constantFrom(
        "MO",
        "TU",
        "WE",
        "TH",
        "FR",
        "SA",
        "SU",
        "1MO",
        "-1FR",
        "XX",
        "",
      );
      const part = fc.oneof(
        fc.constantFrom(
          "FREQ=DAILY",
          "FREQ=WEEKLY",
          "FREQ=HOURLY",
          "FREQ=",
          "INTERVAL=2",
          "COUNT=3",
        ),
        hours.map((h) => `BYHOUR=${h}`),
        fc.array(day, { maxLength: 4 }).map((days) => `BYDAY=${days.join(",")}`),
        fc.constantFrom("BYMINUTE=0", "BYMINUTE=00", "BYMINUTE=30", "BYSECOND=0", "BYSECOND=000"),
        fc.constantFrom("DTSTART=20260101T000000Z", "byhour=9", "=", ";", "RRULE:"),
        fc.string({ maxLength: 8 }),
      );
      const validHours = fc.uniqueArray(fc.integer({ min: 0, max: 23 }), {
        minLength: 1,
        maxLength: 24,
      })
        .map((list) => list.join(","));
      const validDays = fc.uniqueArray(fc.constantFrom("MO", "TU", "WE", "TH", "FR", "SA", "SU"), {
        minLength: 1,
        maxLength: 7,
      }).map((days) => days.join(","));
      const structured = fc.tuple(
        fc.constantFrom("FREQ=DAILY", "FREQ=WEEKLY"),
        validHours.map((h) => `BYHOUR=${h}`),
        fc.option(validDays.map((d) => `BYDAY=${d}`)),
        fc.option(fc.constantFrom("BYMINUTE=0", "BYSECOND=0", "BYMINUTE=00")),
      ).map((parts) => parts.filter((p): p is string => p !== null))
        .chain((parts) =>
          fc.oneof(
            { weight: 3, arbitrary: fc.constant(parts) },
            { weight: 1, arbitrary: fc.shuffledSubarray(parts, { minLength: 1 }) },
          )
        );
      const rrule = fc.tuple(
        fc.boolean(),
        fc.oneof(
          { weight: 3, arbitrary: structured },
          { weight: 1, arbitrary: fc.array(part, { minLength: 1, maxLength: 5 }) },
        ),
      ).map(([prefix, parts]) => (prefix ? "RRULE:" : "") + parts.join(";"));
      let serial = 0;
      await fc.assert(
        fc.asyncProperty(
          rrule,
          fc.constantFrom("local", "utc"),
          fc.constantFrom("ACTIVE", "PAUSED"),
          async (rule, timezone, status) => {
            const id = `rr-${serial++}`;
            const create = await daemon.send(
              `create rrule ${JSON.stringify(rule)} ${timezone} ${status}`,
              jsonRequest("POST", "/api/v1/actions", {
                action: "svc.automations.create",
                definition: { ...definition(id, daemon.project), rrule: rule, timezone, status },
              }),
            );
            assert.ok(create.status === 200 || create.status === 400, create.text);
            if (create.status !== 200) return;
            for (const action of ["svc.automations.health", "svc.automations.get"]) {
              const reply = await daemon.send(
                `${action} after rrule ${JSON.stringify(rule)}`,
                jsonRequest("POST", "/api/v1/actions", { action, id }),
              );
              assert.equal(reply.status, 200, reply.text);
            }
            const tick = await daemon.send(
              `tick after rrule ${JSON.stringify(rule)}`,
              jsonRequest("POST", "/api/v1/actions", { action: "svc.automations.tick" }),
            );
            assert.equal(tick.status, 200, tick.text);
            assert.deepEqual((tick.body as Json).result.failures, [], tick.text);
            const deleted = await daemon.send(
              `delete ${id}`,
              jsonRequest("POST", "/api/v1/actions", { action: "svc.automations.delete", id }),
            );
            assert.equal(deleted.status, 200, deleted.text);
          },
        ),
        { seed: SEED + 2, numRuns: fuzzRuns(300) },
      );
      await assertAlive(daemon);
    },
  );

  await t.step("a long-poll on a live session waits, then answers", async () => {
    const events = `/api/v1/sessions/${daemon.sinkId}/events`;
    // Nothing comes after seq 999999: once its wait runs out, it answers with an empty page
    // (a hang fails the per-request timeout).
    const expired = await daemon.send(
      "long-poll that runs out",
      rawRequest("GET", `${events}?afterSeq=999999&waitMs=300`),
    );
    assert.equal(expired.status, 200, expired.text);
    assert.deepEqual((expired.body as Json).events, [], expired.text);

    // It waits: still unanswered after later requests were answered, then answered by the
    // event that arrives (the sink's input). It is only due back empty after 30 s.
    const last = await lastSeq(daemon, events);
    let answered = false;
    const poll = daemon.send(
      "long-poll for the next event",
      rawRequest("GET", `${events}?afterSeq=${last}&waitMs=${LONG_POLL_MS}`),
      { timeoutMs: LONG_POLL_MS + REQUEST_TIMEOUT_MS },
    ).finally(() => answered = true);
    poll.catch(() => {}); // Awaited below; a rejection must not go unhandled meanwhile.
    for (let i = 0; i < 3; i++) {
      const health = await daemon.send(
        "health beside a long-poll",
        rawRequest("GET", "/api/v1/health"),
      );
      assert.equal(health.status, 200, health.text);
    }
    assert.equal(answered, false, "the long-poll answered before any new event: it did not wait");
    const input = await daemon.send(
      "input that ends the long-poll",
      jsonRequest("POST", `/api/v1/sessions/${daemon.sinkId}/input`, { data: "wake\n" }),
    );
    assert.equal(input.status, 200, input.text);
    const reply = await poll;
    assert.equal(reply.status, 200, reply.text);
    const [first] = (reply.body as Json).events as Json[];
    assert.equal(first?.seq, last + 1, reply.text);
    assert.equal(first?.kind, "input", reply.text);
  });

  report(daemon, "json fuzz");
});
