/**
 * Shared pieces of the fault suites (tests/faults, tests/faults_slow): a
 * `svc serve` subprocess on a temporary home with the fixture harnesses,
 * that can be killed -9 and restarted on the same home, plus readers and
 * store checks.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SvcClient } from "../../src/client/client.ts";
import { fixtureHarnesses } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { type ServeProcess, startServe } from "../helpers/process.ts";

// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/** An event as served, with its payload parsed. */
export interface ServedEvent {
  seq: number;
  id: string;
  kind: string;
  payload_json: string;
  created_at: string;
  session_id: string;
}

/** A daemon subprocess on a home that outlives it (kill -9, restart). */
export interface FaultRig {
  readonly home: string;
  readonly project: string;
  readonly socket: string;
  /** The client of the current daemon (replaced by `start`). */
  client: SvcClient;
  /** The current `svc serve` process, or null between a kill and a start. */
  serve: ServeProcess | null;
  /** Starts `svc serve` on the home (after a kill or a stop) and a fresh client. */
  start(): Promise<void>;
  /** kill -9 of the daemon; sessions it supervised keep running (reparented). */
  kill9(): Promise<void>;
  /** Graceful stop (SIGTERM). */
  stop(): Promise<Deno.CommandStatus | null>;
  /** POST /actions. */
  action(action: string, fields?: Json): Promise<{ status: number; body: Json }>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of a rig: extra config.json members, and a home to use instead of a fresh one. */
export interface RigOptions {
  config?: Json;
  home?: string;
  /** Start the daemon right away (default true). */
  start?: boolean;
}

/** A rig with the fixture harnesses configured (`fixture`: prompt as argument, stdin open). */
export async function faultRig(options: RigOptions = {}): Promise<FaultRig> {
  const ownsHome = options.home === undefined;
  const home = options.home ?? await tempHome();
  const project = await Deno.realPath(await tempHome());
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({ harnesses: fixtureHarnesses(), ...options.config }),
  );
  const socket = `${home}/svc.sock`;
  const rig: FaultRig = {
    home,
    project,
    socket,
    client: new SvcClient({ socketPath: socket }),
    serve: null,
    async start() {
      assert.equal(rig.serve, null, "a daemon is already running");
      closeClient(rig.client);
      rig.serve = await startServe(home);
      rig.client = new SvcClient({ socketPath: socket });
      const health = await rig.client.health().catch((error) => {
        throw new Error(`svc serve did not answer: ${error}\n${rig.serve?.stderr()}`);
      });
      assert.equal(typeof health.instanceId, "string");
    },
    async kill9() {
      closeClient(rig.client);
      await rig.serve?.stop("SIGKILL");
      rig.serve = null;
    },
    async stop() {
      closeClient(rig.client);
      const status = await rig.serve?.stop("SIGTERM") ?? null;
      rig.serve = null;
      return status;
    },
    async action(action, fields = {}) {
      const response = await rig.client.post<Json>("/actions", { action, ...fields });
      return { status: response.status, body: response.body };
    },
    async [Symbol.asyncDispose]() {
      await rig.stop();
      if (ownsHome) await removeTree(home);
      await removeTree(project);
    },
  };
  if (options.start !== false) await rig.start();
  return rig;
}

/** Closes a client once (closing twice throws BadResource). */
function closeClient(client: SvcClient): void {
  try {
    client.close();
  } catch { /* already closed */ }
}

/** Reads a session's whole log through pages of `limit` events. */
export async function readAll(client: SvcClient, sessionId: string): Promise<ServedEvent[]> {
  const events: ServedEvent[] = [];
  for (let cursor = 0, more = true; more;) {
    const page = await client.get<Json>(
      `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=1000`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    events.push(...page.body.events);
    cursor = page.body.nextCursor.afterSeq;
    more = page.body.hasMore;
  }
  return events;
}

/**
 * Follows a session with long-polls until `enough(served)` says so or the
 * session's log ends; returns every event served, in order.
 */
export async function follow(
  client: SvcClient,
  sessionId: string,
  enough: (served: ServedEvent[]) => boolean,
  { timeoutMs = 20_000 }: { timeoutMs?: number } = {},
): Promise<ServedEvent[]> {
  const served: ServedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  let cursor = 0;
  while (!enough(served)) {
    if (Date.now() > deadline) {
      throw new Error(`Gave up following ${sessionId} after ${served.length} events`);
    }
    const page = await client.get<Json>(
      `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=500&waitMs=1000`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    served.push(...page.body.events);
    cursor = page.body.nextCursor.afterSeq;
    if (served.at(-1)?.kind === "session.ended") break;
  }
  return served;
}

/** The text of a log's `output` events of one stream (or both), in order. */
export function outputText(events: ServedEvent[], stream?: "stdout" | "stderr"): string {
  return events
    .filter((event) => event.kind === "output")
    .map((event) => JSON.parse(event.payload_json) as { stream: string; data: string })
    .filter((payload) => stream === undefined || payload.stream === stream)
    .map((payload) => payload.data)
    .join("");
}

/** Asserts seqs 1..n without gaps, and that the log ends with one `session.ended`. */
export function assertWholeLog(events: ServedEvent[]): Json {
  const seqs = events.map((event) => event.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "seqs are gap-free from 1");
  const ends = events.filter((event) => event.kind === "session.ended");
  assert.equal(ends.length, 1, "exactly one session.ended");
  assert.equal(events.at(-1)?.kind, "session.ended", "session.ended is the last event");
  return JSON.parse(events.at(-1)!.payload_json);
}

/** Polls a session's record until it leaves `running`. */
export async function waitForEnd(
  client: SvcClient,
  sessionId: string,
  timeoutMs = 20_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get<Json>(`/sessions/${sessionId}`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    if (response.body.status !== "running") return response.body;
    if (Date.now() > deadline) throw new Error(`Session ${sessionId} still running`);
    await delay(25);
  }
}

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await delay(50);
  }
}

/** `PRAGMA integrity_check` of a home's store (run while no daemon holds it). */
export function integrityCheck(home: string): string {
  const db = new DatabaseSync(`${home}/svc.db`);
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
      .integrity_check;
  } finally {
    db.close();
  }
}

export { alive } from "../helpers/process.ts";

/** Kills a leftover process, ignoring one that is gone. */
export function killQuietly(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch { /* gone */ }
}

/** Sleeps `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A routine definition for the fixture harness (C2.6). Its rule fires daily
 * at `hour` UTC, so `hour` = the current UTC hour makes an occurrence that
 * is already due (at HH:00) and the next one a day away.
 */
export function routineDefinition(
  id: string,
  project: string,
  overrides: Json = {},
): Json {
  return {
    schemaVersion: 1,
    id,
    name: `Fault routine ${id}`,
    status: "ACTIVE",
    rrule: `FREQ=DAILY;BYHOUR=${new Date().getUTCHours()}`,
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 30,
    runtime: "fixture",
    prompt: "out run-started; flood 400; sleep 60000",
    cwd: project,
    ...overrides,
  };
}

/** The start of the current UTC hour, in ms: the due occurrence of `routineDefinition`. */
export function currentHourMs(nowMs = Date.now()): number {
  return nowMs - (nowMs % 3_600_000);
}

/** Opens a home's store directly (only while no daemon runs on it). */
export function openStore(home: string): DatabaseSync {
  return new DatabaseSync(`${home}/svc.db`, { timeout: 5000 });
}
