/**
 * What every bench stage shares: the run's sizes (full or `--quick`), the
 * temporary root, the process registry, and helpers to make homes, launch
 * sessions and read event logs back through the API.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { UnixHttpClient } from "./http_client.ts";
import type { LoadResult } from "./load.ts";
import { hexLines, mixedLines } from "./data.ts";
import { type ProcessRegistry, TICKER_SCRIPT } from "./processes.ts";

/** The sizes of one run: the full run, or the `--quick` smoke run. */
export interface Sizes {
  healthRounds: number;
  healthWarmupMs: number;
  healthMeasureMs: number;
  connections: number;
  ingestBytes: number;
  latencyTicks: number;
  latencyIntervalMs: number;
  pageEvents: number;
  pageReads: number;
  sessions: number;
  sessionBytes: number;
  startRuns: number;
  routines: number;
  ticks: number;
  /** Lines of the stream latency stage, and their interval. */
  streamTicks: number;
  streamIntervalMs: number;
  /** Readers of the fan-out stage, and the lines (and interval) of its busy session. */
  fanoutReaders: number;
  fanoutTicks: number;
  fanoutIntervalMs: number;
}

export const FULL: Sizes = {
  healthRounds: 3,
  healthWarmupMs: 1000,
  healthMeasureMs: 5000,
  connections: 32,
  ingestBytes: 100_000_000,
  latencyTicks: 500,
  latencyIntervalMs: 20,
  pageEvents: 1_000_000,
  pageReads: 300,
  sessions: 200,
  sessionBytes: 1_000_000,
  startRuns: 7,
  routines: 1000,
  ticks: 10,
  streamTicks: 1000,
  streamIntervalMs: 10,
  fanoutReaders: 200,
  fanoutTicks: 1000,
  fanoutIntervalMs: 10,
};

export const QUICK: Sizes = {
  healthRounds: 1,
  healthWarmupMs: 300,
  healthMeasureMs: 1500,
  connections: 32,
  ingestBytes: 10_000_000,
  latencyTicks: 100,
  latencyIntervalMs: 20,
  pageEvents: 100_000,
  pageReads: 100,
  sessions: 50,
  sessionBytes: 1_000_000,
  startRuns: 3,
  routines: 200,
  ticks: 5,
  streamTicks: 300,
  streamIntervalMs: 10,
  fanoutReaders: 200,
  fanoutTicks: 300,
  fanoutIntervalMs: 10,
};

/** The shared state of a run. */
export interface BenchContext {
  readonly sizes: Sizes;
  readonly quick: boolean;
  readonly root: string;
  readonly registry: ProcessRegistry;
  /** Where daemons write `--cpu-prof` profiles, or null. */
  readonly cpuProfDir: string | null;
  /** The absolute path of `cat` (the flood harness). */
  readonly cat: string;
  /** util-linux `flock`, which gates the concurrent sessions so that all are live at once; or null. */
  readonly flock: string | null;
  log(message: string): void;
}

/** The lock file that gated harnesses wait on (shared) while the bench holds it (exclusive). */
export function gatePath(ctx: BenchContext): string {
  return join(ctx.root, "gate.lock");
}

/** Holds the gate shut until `open()` (idempotent): gated harnesses then all start at once. */
export async function closeGate(ctx: BenchContext): Promise<{ open(): void }> {
  const file = await Deno.open(gatePath(ctx), { read: true, write: true, create: true });
  await file.lock(true);
  let shut = true;
  return {
    open: () => {
      if (!shut) return;
      shut = false;
      file.unlockSync();
      file.close();
    },
  };
}

/** Creates a 0700 home `root/name` with `config` as its config.json (when given). */
export async function makeHome(
  ctx: BenchContext,
  name: string,
  config?: unknown,
): Promise<string> {
  const home = join(ctx.root, name);
  await Deno.mkdir(home, { recursive: true });
  await Deno.chmod(home, 0o700);
  if (config !== undefined) {
    await Deno.writeTextFile(join(home, "config.json"), JSON.stringify(config));
  }
  return home;
}

/** The config of homes that launch the bench harnesses (`cat FILE`, the ticker). */
export function harnessConfig(ctx: BenchContext): unknown {
  return {
    maxLiveSessions: 256,
    harnesses: {
      cat: { command: [ctx.cat, "{prompt}"], prompt: "arg", label: "cat FILE" },
      ...(ctx.flock === null ? {} : {
        "gated-cat": {
          command: [ctx.flock, "--shared", gatePath(ctx), ctx.cat, "{prompt}"],
          prompt: "arg",
          label: "cat FILE once the bench opens the gate",
        },
      }),
      ticker: {
        command: [Deno.execPath(), "run", TICKER_SCRIPT, "{prompt}"],
        prompt: "arg",
        label: "timestamped lines",
      },
      ...(ctx.flock === null ? {} : {
        "gated-ticker": {
          command: [
            ctx.flock,
            "--shared",
            gatePath(ctx),
            Deno.execPath(),
            "run",
            TICKER_SCRIPT,
            "{prompt}",
          ],
          prompt: "arg",
          label: "timestamped lines once the bench opens the gate",
        },
      }),
    },
  };
}

/** The project directory that launches use as their root. */
export async function projectDir(ctx: BenchContext): Promise<string> {
  const dir = join(ctx.root, "project");
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}

/** Launches a session; returns its id. */
export async function launch(
  client: UnixHttpClient,
  request: { projectRoot: string; harness: string; prompt: string },
): Promise<string> {
  const record = await client.json<{ id: string }>("POST", "/api/v1/sessions", request);
  return record.id;
}

/** Polls a session record every `everyMs` until it leaves `running` (bounded by `timeoutMs`). */
export async function waitForEnd(
  client: UnixHttpClient,
  sessionId: string,
  { everyMs = 10, timeoutMs = 300_000 } = {},
): Promise<{ status: string; last_seq: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const record = await client.json<{ status: string; last_seq: number }>(
      "GET",
      `/api/v1/sessions/${sessionId}`,
    );
    if (record.status !== "running") return record;
    if (performance.now() > deadline) throw new Error(`Session ${sessionId} still running`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A stored event as the API returns it (C2.1). */
export interface ApiEvent {
  seq: number;
  id: string;
  session_id: string;
  kind: string;
  payload_json: string;
  created_at: string;
}

/** What reading a session's whole log back found. */
export interface ReadBack {
  events: number;
  outputEvents: number;
  outputBytes: number;
  /** SHA-256 (hex) of the concatenated output `data`, in seq order. */
  outputSha256: string;
  gapFree: boolean;
  endedStatus: string | null;
  redactions: number;
  seconds: number;
}

/**
 * Reads a session's whole log through the API (pages of 1000 by `afterSeq`),
 * counting output bytes and hashing them; `keep` receives every event.
 */
export async function readBack(
  client: UnixHttpClient,
  sessionId: string,
  keep?: (event: ApiEvent) => void,
): Promise<ReadBack> {
  const started = performance.now();
  const encoder = new TextEncoder();
  const hash = createHash("sha256");
  const result: Omit<ReadBack, "outputSha256" | "seconds"> = {
    events: 0,
    outputEvents: 0,
    outputBytes: 0,
    gapFree: true,
    endedStatus: null,
    redactions: 0,
  };
  let afterSeq = 0;
  for (let page = 0; page < 1_000_000; page++) {
    const body = await client.json<{
      events: ApiEvent[];
      nextCursor: { afterSeq: number };
      hasMore: boolean;
    }>("GET", `/api/v1/sessions/${sessionId}/events?afterSeq=${afterSeq}&limit=1000`);
    for (const event of body.events) {
      if (event.seq !== afterSeq + 1) result.gapFree = false;
      afterSeq = event.seq;
      result.events++;
      keep?.(event);
      const payload = JSON.parse(event.payload_json);
      if (event.kind === "output") {
        const bytes = encoder.encode(payload.data as string);
        result.outputEvents++;
        result.outputBytes += bytes.length;
        if ((payload.data as string).includes("[REDACTED:")) result.redactions++;
        hash.update(bytes);
      } else if (event.kind === "session.ended") {
        result.endedStatus = payload.status;
      }
    }
    if (!body.hasMore) break;
  }
  return {
    ...result,
    outputSha256: hash.digest("hex"),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Writes a data file of about `bytes` bytes: mixed lines, or `xxd -p` output
 * (`kind: "hex"`); returns its path, size and hash.
 */
export async function dataFile(
  ctx: BenchContext,
  bytes: number,
  seed: number,
  kind: "mixed" | "hex" = "mixed",
) {
  const path = join(ctx.root, "data", `${kind}-${bytes}.txt`);
  const data = kind === "hex" ? hexLines(bytes, seed) : mixedLines(bytes, seed);
  await Deno.mkdir(join(ctx.root, "data"), { recursive: true });
  await Deno.writeFile(path, data);
  return { path, bytes: data.length, sha256: sha256(data) };
}

/**
 * Writes every dirty page to disk (`sync`) before a measured phase that
 * writes, so that it does not start with the kernel's writeback of what the
 * phase before wrote (hundreds of MB) still to do. Where `sync` is missing
 * (Windows), nothing is done.
 */
export async function settleDisk(): Promise<void> {
  try {
    await new Deno.Command("sync", { stdout: "null", stderr: "null" }).output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** SHA-256 (hex) of `bytes`. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Runs the load generator in its own process against `socket`; returns its result. */
export async function runLoadProcess(
  ctx: BenchContext,
  server: { socket: string; pid: number },
  loadScript: string,
): Promise<LoadResult> {
  const { connections, healthWarmupMs, healthMeasureMs } = ctx.sizes;
  const process = ctx.registry.spawn("load generator", Deno.execPath(), [
    "run",
    "--allow-all",
    loadScript,
    server.socket,
    "/api/v1/health",
    String(connections),
    String(healthWarmupMs),
    String(healthMeasureMs),
    String(server.pid),
  ], { stdout: "piped" });
  const output = new Response(process.child.stdout).text();
  const timer = setTimeout(
    () => process.stop("SIGKILL"),
    healthWarmupMs + healthMeasureMs + 30_000,
  );
  try {
    const status = await process.exited;
    const text = await output;
    if (!status.success) {
      throw new Error(`Load generator failed (${status.code}): ${process.stderr().slice(-2000)}`);
    }
    return JSON.parse(text.trim().split("\n").at(-1)!);
  } finally {
    clearTimeout(timer);
  }
}
