/**
 * `deno task soak --minutes N`: runs a real `svc serve` for N minutes under a
 * steady churn and checks it neither loses events nor leaks.
 *
 * - Session workers launch fixture harnesses in a loop: some flood then
 *   complete, some flood then get killed (SIGTERM or SIGKILL) at a random
 *   moment, some fail. A reader follows every session with long-polls.
 * - An automation worker ticks the scheduler (`svc.automations.tick`) every
 *   second, starts manual runs, and every few seconds makes a routine's
 *   occurrence due (the 60 s cadence and hourly rules cannot be sped up from
 *   outside) so a tick claims a real scheduled run.
 * - Every session's log is checked when it ends: what the reader was served
 *   equals what is stored, seqs are gap-free, a completed harness's output is
 *   exactly what it wrote, a killed one's streams have no gap.
 * - The daemon's RSS and open file descriptors (/proc/<pid>/fd) are sampled
 *   over time; at the end, idle, the fd count must be back near its baseline
 *   and RSS growth bounded.
 * - Then the daemon is left idle: its RSS must come back to at most 1.5× the
 *   idle baseline within --settle-seconds (issue 26: memory a busy hour took
 *   is given back once the daemon is idle).
 *
 * Options: --minutes N (default 5), --concurrency N (session workers, default 3),
 * --sample-seconds N (default 5), --seed N (random choices; printed), --keep (keep the home),
 * --settle-seconds N (default 120), --v8-flags FLAGS (passed to the daemon, e.g. --trace-gc),
 * --daemon-output FILE (the daemon's stdout and stderr, discarded by default).
 * Exits 0 when every check held, 1 otherwise. Linux only (/proc).
 */
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { SvcClient } from "../src/client/client.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

interface Event {
  seq: number;
  kind: string;
  payload_json: string;
}

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../tests/fixtures/harness.ts", import.meta.url));

const { values } = parseArgs({
  args: Deno.args,
  options: {
    minutes: { type: "string", default: "5" },
    concurrency: { type: "string", default: "3" },
    "sample-seconds": { type: "string", default: "5" },
    seed: { type: "string" },
    keep: { type: "boolean", default: false },
    "settle-seconds": { type: "string", default: "120" },
    "v8-flags": { type: "string" },
    "daemon-output": { type: "string" },
  },
});
/** Idle RSS at most this × the idle baseline once the soak's load is gone (issue 26). */
const SETTLED_RSS_RATIO = 1.5;
const settleMs = Math.max(0, Number(values["settle-seconds"])) * 1000;
const minutes = Number(values.minutes);
const concurrency = Math.max(1, Math.floor(Number(values.concurrency)));
const sampleMs = Math.max(1, Number(values["sample-seconds"])) * 1000;
const seed = values.seed === undefined
  ? Math.floor(Math.random() * 0x7fffffff)
  : Number(values.seed);
if (!(minutes > 0) || !Number.isSafeInteger(seed)) {
  console.error(
    "Usage: deno task soak [--minutes N] [--concurrency N] [--sample-seconds N] [--seed N]",
  );
  Deno.exit(2);
}

/** mulberry32: seeded choices, so a run's mix can be replayed with --seed. */
const random = (() => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
const pick = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const failures: string[] = [];
const fail = (message: string) => {
  failures.push(message);
  console.error(`FAIL ${message}`);
};
const stats = {
  sessions: 0,
  completed: 0,
  killed: 0,
  failed: 0,
  scheduledRuns: 0,
  manualRuns: 0,
  ticks: 0,
  eventsRead: 0,
  linesChecked: 0,
};

// ---- the daemon --------------------------------------------------------------------------

const home = await Deno.makeTempDir({ prefix: "svc-soak-" });
await Deno.chmod(home, 0o700);
const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-soak-project-" }));
await Deno.writeTextFile(
  `${home}/config.json`,
  JSON.stringify({
    harnesses: {
      fixture: { command: [Deno.execPath(), "run", "-A", FIXTURE, "{prompt}"], prompt: "arg" },
    },
  }),
);
const socket = `${home}/svc.sock`;
const serve = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-all",
    ...(values["v8-flags"] ? [`--v8-flags=${values["v8-flags"]}`] : []),
    MAIN,
    "serve",
    "--home",
    home,
  ],
  env: { NO_COLOR: "1", CODEX_HOME: project },
  stdin: "null",
  stdout: values["daemon-output"] ? "piped" : "null",
  stderr: values["daemon-output"] ? "piped" : "null",
}).spawn();
if (values["daemon-output"]) {
  const file = await Deno.open(values["daemon-output"], {
    write: true,
    create: true,
    truncate: true,
  });
  for (const stream of [serve.stdout, serve.stderr]) {
    (async () => {
      for await (const chunk of stream) file.writeSync(chunk);
    })().catch(() => {});
  }
}
let daemonExited = false;
serve.status.then(() => daemonExited = true);

let client = new SvcClient({ socketPath: socket });
const bootDeadline = Date.now() + 30_000;
let daemonPid = 0;
while (daemonPid === 0) {
  try {
    daemonPid = (await client.health()).pid;
  } catch (error) {
    if (daemonExited || Date.now() > bootDeadline) {
      console.error(`svc serve did not start: ${error}`);
      Deno.exit(1);
    }
    await sleep(100);
  }
}
console.log(
  `soak: ${minutes} min, ${concurrency} session workers, seed ${seed}, daemon pid ${daemonPid}, home ${home}`,
);

// ---- resource samples --------------------------------------------------------------------

interface Sample {
  atS: number;
  rssKiB: number;
  fds: number;
  live: number;
}

const samples: Sample[] = [];
const startedAt = Date.now();
const deadline = startedAt + minutes * 60_000;

/** What the daemon's descriptors point at (sockets, pipes, files), for a leak report. */
function fdTargets(): Map<string, number> {
  const targets = new Map<string, number>();
  for (const entry of Deno.readDirSync(`/proc/${daemonPid}/fd`)) {
    let target = "?";
    try {
      target = Deno.readLinkSync(`/proc/${daemonPid}/fd/${entry.name}`)
        .replace(/\[\d+\]$/, "[…]");
    } catch { /* closed meanwhile */ }
    targets.set(target, (targets.get(target) ?? 0) + 1);
  }
  return targets;
}

/**
 * An idle measurement with no client connection open (a client's pooled
 * keep-alive connections are descriptors of the daemon too).
 */
async function idleSample(
  label: string,
): Promise<{ sample: Sample; targets: Map<string, number> }> {
  try {
    client.close();
  } catch { /* closed */ }
  await sleep(1000);
  const sample = measure();
  const targets = fdTargets();
  client = new SvcClient({ socketPath: socket });
  sample.live = (await client.health()).liveSessions ?? 0;
  samples.push(sample);
  console.log(
    `t=${String(sample.atS).padStart(5)}s rss=${
      (sample.rssKiB / 1024).toFixed(1).padStart(7)
    } MiB ` +
      `fds=${String(sample.fds).padStart(4)} live=${sample.live} ${label}`,
  );
  return { sample, targets };
}

function measure(): Sample {
  const status = Deno.readTextFileSync(`/proc/${daemonPid}/status`);
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  let fds = 0;
  for (const _ of Deno.readDirSync(`/proc/${daemonPid}/fd`)) fds++;
  return { atS: Math.round((Date.now() - startedAt) / 1000), rssKiB, fds, live: 0 };
}

async function sampleOnce(label = ""): Promise<Sample> {
  const sample = measure();
  sample.live = (await client.health()).liveSessions ?? 0;
  samples.push(sample);
  console.log(
    `t=${String(sample.atS).padStart(5)}s rss=${
      (sample.rssKiB / 1024).toFixed(1).padStart(7)
    } MiB ` +
      `fds=${String(sample.fds).padStart(4)} live=${sample.live} sessions=${stats.sessions} ` +
      `events=${stats.eventsRead} runs=${stats.scheduledRuns}+${stats.manualRuns} ${label}`,
  );
  return sample;
}

// ---- sessions and their checks -----------------------------------------------------------

/** Follows a session to its `session.ended`, long-polling; returns everything served. */
async function follow(sessionId: string): Promise<Event[]> {
  const served: Event[] = [];
  let cursor = 0;
  const giveUp = Date.now() + 120_000;
  while (Date.now() < giveUp) {
    const page = await client.get<Json>(
      `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=1000&waitMs=2000`,
    );
    if (page.status !== 200) {
      fail(`${sessionId}: events page ${page.status} ${JSON.stringify(page.body)}`);
      return served;
    }
    served.push(...page.body.events);
    cursor = page.body.nextCursor.afterSeq;
    if (served.at(-1)?.kind === "session.ended") return served;
  }
  fail(`${sessionId}: no session.ended after 120 s`);
  return served;
}

async function readAll(sessionId: string): Promise<Event[]> {
  const events: Event[] = [];
  for (let cursor = 0, more = true; more;) {
    const page = await client.get<Json>(
      `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=1000`,
    );
    events.push(...page.body.events);
    cursor = page.body.nextCursor.afterSeq;
    more = page.body.hasMore;
  }
  return events;
}

function streamText(events: Event[], stream: string): string {
  return events.filter((event) => event.kind === "output")
    .map((event) => JSON.parse(event.payload_json))
    .filter((payload) => payload.stream === stream)
    .map((payload) => payload.data)
    .join("");
}

/** The `line i` lines of a stream must be first, first+2, … with no gap; returns their count. */
function checkLines(sessionId: string, text: string, first: number, exactCount?: number): number {
  const lines = text.split("\n").filter((line) => line.startsWith("line "));
  for (const [index, line] of lines.entries()) {
    if (line !== `line ${first + index * 2}`) {
      fail(`${sessionId}: expected "line ${first + index * 2}", got "${line}" (a lost line)`);
      return index;
    }
  }
  if (exactCount !== undefined && lines.length !== exactCount) {
    fail(`${sessionId}: ${lines.length} lines stored, the harness wrote ${exactCount}`);
  }
  stats.linesChecked += lines.length;
  return lines.length;
}

/** Checks an ended session's log against what its reader was served and what it wrote. */
async function verify(sessionId: string, served: Event[], floodLines: number, whole: boolean) {
  const stored = await readAll(sessionId);
  stats.eventsRead += served.length;
  if (JSON.stringify(stored) !== JSON.stringify(served)) {
    fail(
      `${sessionId}: the stored log (${stored.length}) differs from what was served (${served.length})`,
    );
  }
  const seqs = stored.map((event) => event.seq);
  if (seqs.some((seq, index) => seq !== index + 1)) fail(`${sessionId}: seqs have a gap`);
  const ends = stored.filter((event) => event.kind === "session.ended");
  if (ends.length !== 1 || stored.at(-1)?.kind !== "session.ended") {
    fail(`${sessionId}: ${ends.length} session.ended events, not last`);
  }
  const expectEven = whole ? Math.ceil(floodLines / 2) : undefined;
  const expectOdd = whole ? Math.floor(floodLines / 2) : undefined;
  checkLines(sessionId, streamText(stored, "stdout"), 0, expectEven);
  checkLines(sessionId, streamText(stored, "stderr"), 1, expectOdd);
}

async function launch(prompt: string): Promise<string | null> {
  const launched = await client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "fixture",
    prompt,
  });
  if (launched.status !== 201) {
    fail(`launch "${prompt}": ${launched.status} ${JSON.stringify(launched.body)}`);
    return null;
  }
  stats.sessions++;
  return launched.body.id;
}

/** One session: flood then complete, flood then be killed, or fail. */
async function oneSession(): Promise<void> {
  const lines = pick(200, 20_000);
  const roll = random();
  const kind = roll < 0.45 ? "complete" : roll < 0.9 ? "kill" : "fail";
  const prompt = kind === "complete"
    ? `flood ${lines}; out done`
    : kind === "kill"
    ? `flood ${lines}; sleep 600000`
    : `flood ${lines}; exit 3`;
  const sessionId = await launch(prompt);
  if (sessionId === null) return;
  const following = follow(sessionId);
  if (kind === "kill") {
    await sleep(pick(0, 1500));
    const signal = random() < 0.7 ? "SIGTERM" : "SIGKILL";
    const killed = await client.post<Json>(`/sessions/${sessionId}/kill`, { signal });
    if (killed.status !== 200) fail(`${sessionId}: kill ${killed.status}`);
  }
  const served = await following;
  const record = (await client.get<Json>(`/sessions/${sessionId}`)).body;
  const expected = { complete: "completed", kill: "killed", fail: "failed" }[kind];
  if (record.status !== expected) {
    fail(`${sessionId}: ended ${record.status}, expected ${expected}`);
  }
  stats[expected as "completed" | "killed" | "failed"]++;
  await verify(sessionId, served, lines, kind !== "kill");
}

async function sessionWorker(): Promise<void> {
  while (Date.now() < deadline && !daemonExited) {
    try {
      await oneSession();
    } catch (error) {
      fail(`session worker: ${error}`);
      await sleep(500);
    }
  }
}

// ---- automations -------------------------------------------------------------------------

function definition(id: string, status: string, rrule: string): Json {
  return {
    schemaVersion: 1,
    id,
    name: `Soak ${id}`,
    status,
    rrule,
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 5,
    runtime: "fixture",
    prompt: "flood 600",
    cwd: project,
  };
}

async function action(name: string, fields: Json = {}): Promise<Json> {
  const response = await client.post<Json>("/actions", { action: name, ...fields });
  if (response.status !== 200) fail(`${name}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Follows a run's session to its end and checks it like any other. */
async function checkRun(runId: string, sessionId: string | null, routineId: string) {
  if (sessionId === null) return fail(`run ${runId}: no session`);
  const served = await follow(sessionId);
  await verify(sessionId, served, 600, true);
  for (let i = 0; i < 100; i++) {
    const runs =
      (await action("svc.automations.runs", { id: routineId, limit: 50 })).result?.runs ??
        [];
    const run = runs.find((r: Json) => r.id === runId);
    if (run?.status === "succeeded") return;
    if (run && run.status !== "running") return fail(`run ${runId}: ${JSON.stringify(run)}`);
    await sleep(50);
  }
  fail(`run ${runId}: still running after its session ended`);
}

/** A fresh ACTIVE routine, planned up to just before the current hour: the next tick runs it. */
async function scheduledRun(serial: number): Promise<void> {
  const dueMs = Date.now() - (Date.now() % 3_600_000);
  const id = `soak-due-${serial}`;
  await action("svc.automations.create", {
    definition: definition(id, "ACTIVE", `FREQ=DAILY;BYHOUR=${new Date(dueMs).getUTCHours()}`),
  });
  const db = new DatabaseSync(`${home}/svc.db`, { timeout: 5000 });
  try {
    const before = new Date(dueMs - 60_000).toISOString();
    db.prepare("UPDATE routines SET active_since = ?, last_planned_at = ? WHERE id = ?")
      .run(before, before, id);
  } finally {
    db.close();
  }
  const tick = await action("svc.automations.tick");
  stats.ticks++;
  const claimed = tick.result?.claimed?.find((c: Json) => c.routineId === id);
  if (!claimed) return fail(`tick did not claim ${id}: ${JSON.stringify(tick.result)}`);
  stats.scheduledRuns++;
  const runs = (await action("svc.automations.runs", { id })).result.runs;
  const run = runs.find((r: Json) => r.id === claimed.runId);
  await checkRun(claimed.runId, run?.sessionId ?? null, id);
  // A second pass never claims the same occurrence again.
  const again = await action("svc.automations.tick");
  stats.ticks++;
  if (again.result?.claimed?.some((c: Json) => c.routineId === id)) {
    fail(`${id}: its occurrence was claimed twice`);
  }
  await action("svc.automations.delete", { id });
}

async function automationWorker(): Promise<void> {
  await action("svc.automations.create", {
    definition: definition("soak-manual", "PAUSED", "FREQ=DAILY;BYHOUR=3"),
  });
  let serial = 0;
  for (let round = 0; Date.now() < deadline && !daemonExited; round++) {
    try {
      await action("svc.automations.tick");
      stats.ticks++;
      if (round % 3 === 0) {
        const run = (await action("svc.automations.run", { id: "soak-manual" })).result;
        if (run?.status === "running") {
          stats.manualRuns++;
          await checkRun(run.runId, run.sessionId, "soak-manual");
        } else if (run?.status !== "skipped") {
          fail(`manual run: ${JSON.stringify(run)}`);
        }
      }
      if (round % 8 === 4) await scheduledRun(serial++);
      await action("svc.automations.health", { id: "soak-manual" });
    } catch (error) {
      fail(`automation worker: ${error}`);
    }
    await sleep(1000);
  }
}

async function sampler(): Promise<void> {
  while (Date.now() < deadline && !daemonExited) {
    await sleep(Math.min(sampleMs, Math.max(0, deadline - Date.now())));
    if (daemonExited) break;
    try {
      await sampleOnce();
    } catch (error) {
      fail(`sampling: ${error}`);
    }
  }
}

// ---- run, settle, judge, clean up ---------------------------------------------------------

let exitCode = 0;
try {
  const { sample: baseline, targets: baselineTargets } = await idleSample("(baseline, idle)");
  await Promise.all([
    ...Array.from({ length: concurrency }, () => sessionWorker()),
    automationWorker(),
    sampler(),
  ]);
  if (daemonExited) fail("svc serve exited during the soak");
  // Idle again: every session ended, every reader gone; let timers and sockets settle.
  for (let i = 0; i < 100 && ((await client.health()).liveSessions ?? 0) > 0; i++) await sleep(100);
  await sleep(2000);
  const { sample: idle, targets: idleTargets } = await idleSample("(end, idle)");

  const busy = samples.slice(1, -1);
  const maxRss = Math.max(...samples.map((s) => s.rssKiB));
  const maxFds = Math.max(...samples.map((s) => s.fds));
  const half = Math.floor(busy.length / 2);
  const firstHalfMax = Math.max(baseline.rssKiB, ...busy.slice(0, half).map((s) => s.rssKiB));
  const secondHalfMax = Math.max(...busy.slice(half).map((s) => s.rssKiB), idle.rssKiB);
  console.log(
    `\nsessions ${stats.sessions} (completed ${stats.completed}, killed ${stats.killed}, failed ${stats.failed}); ` +
      `runs scheduled ${stats.scheduledRuns}, manual ${stats.manualRuns}; ticks ${stats.ticks}; ` +
      `events read ${stats.eventsRead}; flood lines checked ${stats.linesChecked}`,
  );
  console.log(
    `rss: baseline ${(baseline.rssKiB / 1024).toFixed(1)} MiB, max ${
      (maxRss / 1024).toFixed(1)
    } MiB, ` +
      `end ${
        (idle.rssKiB / 1024).toFixed(1)
      } MiB; fds: baseline ${baseline.fds}, max ${maxFds}, end ${idle.fds}`,
  );
  // Bounded growth: idle fds back near the baseline; RSS of the second half not far above the first.
  if (idle.fds > baseline.fds + 2) {
    const grown = [...idleTargets].filter(([t, n]) => n > (baselineTargets.get(t) ?? 0))
      .map(([t, n]) => `${t} ×${n - (baselineTargets.get(t) ?? 0)}`);
    fail(
      `file descriptors leak: ${baseline.fds} at start, ${idle.fds} idle at the end (${
        grown.join(", ")
      })`,
    );
  }
  if (busy.length >= 4 && secondHalfMax > firstHalfMax * 1.5 + 32 * 1024) {
    fail(
      `RSS keeps growing: max ${(firstHalfMax / 1024).toFixed(1)} MiB in the first half, ` +
        `${(secondHalfMax / 1024).toFixed(1)} MiB in the second`,
    );
  }
  if (stats.sessions === 0) fail("no session ran");

  // Memory that comes back: idle, with no client connected, RSS returns near the baseline
  // and stays there; judged on the last sample of the window.
  const settleTarget = baseline.rssKiB * SETTLED_RSS_RATIO;
  const settleStarted = Date.now();
  let settled = idle;
  let firstUnderS: number | null = idle.rssKiB <= settleTarget ? 0 : null;
  client.close();
  while (Date.now() - settleStarted < settleMs && !daemonExited) {
    await sleep(Math.min(sampleMs, settleMs - (Date.now() - settleStarted)));
    settled = measure();
    samples.push(settled);
    console.log(
      `t=${String(settled.atS).padStart(5)}s rss=${
        (settled.rssKiB / 1024).toFixed(1).padStart(7)
      } MiB fds=${String(settled.fds).padStart(4)} (idle, settling)`,
    );
    if (firstUnderS === null && settled.rssKiB <= settleTarget) {
      firstUnderS = Math.round((Date.now() - settleStarted) / 1000);
    }
  }
  client = new SvcClient({ socketPath: socket });
  const settleS = Math.round((Date.now() - settleStarted) / 1000);
  const ratio = settled.rssKiB / baseline.rssKiB;
  console.log(
    `rss after ${settleS} s idle: ${(settled.rssKiB / 1024).toFixed(1)} MiB, ${
      ratio.toFixed(2)
    }× the idle baseline (goal ≤ ${SETTLED_RSS_RATIO}× within ${settleMs / 1000} s; ${
      firstUnderS === null ? "never under it" : `first under it after ${firstUnderS} s`
    })`,
  );
  if (settled.rssKiB > settleTarget) {
    fail(
      `memory does not come back: ${(settled.rssKiB / 1024).toFixed(1)} MiB after ${settleS} s ` +
        `idle, ${ratio.toFixed(2)}× the baseline ${(baseline.rssKiB / 1024).toFixed(1)} MiB`,
    );
  }
} catch (error) {
  fail(`soak: ${error}`);
} finally {
  try {
    client.close();
  } catch { /* closed */ }
  if (!daemonExited) serve.kill("SIGTERM");
  const status = await serve.status;
  if (status.code !== 0) fail(`svc serve exited ${status.code} (signal ${status.signal})`);
  try {
    const db = new DatabaseSync(`${home}/svc.db`);
    const check = (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
      .integrity_check;
    db.close();
    if (check !== "ok") fail(`integrity_check: ${check}`);
  } catch (error) {
    fail(`integrity_check: ${error}`);
  }
  if (values.keep) console.log(`home kept: ${home}`);
  else await Deno.remove(home, { recursive: true }).catch(() => {});
  await Deno.remove(project, { recursive: true }).catch(() => {});
  exitCode = failures.length === 0 ? 0 : 1;
  console.log(
    failures.length === 0
      ? "soak: ok (no lost events, bounded growth, memory back when idle)"
      : `soak: FAILED (${failures.length} problems; replay the mix with --seed ${seed})`,
  );
}
Deno.exit(exitCode);
