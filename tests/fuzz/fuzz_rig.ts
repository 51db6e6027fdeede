/**
 * What the fuzz suites share: the seed and run count (FUZZ_SEED, FUZZ_RUNS),
 * a `svc serve` subprocess to throw requests at, and the invariants every
 * reply must keep: an answer within the per-request timeout, never a 5xx
 * other than `internal_error` (or a documented 5xx: `launch_failed`,
 * `context_admission_unavailable`), an intact error envelope, and a daemon
 * that stays up and answers `/health`.
 *
 * Replay: FUZZ_SEED=<seed printed by the run> deno test -A tests/fuzz/<file>.
 * Go deeper: FUZZ_RUNS=<runs per property> (default: a few hundred in all, < 30 s).
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN } from "../helpers/process.ts";
import { healthy, type RawReply, type SendOptions, sendRaw } from "./raw_client.ts";

// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/** The base seed of this run: FUZZ_SEED, else random. Printed so a failure can be replayed. */
export function fuzzSeed(file: string): number {
  const fromEnv = Deno.env.get("FUZZ_SEED");
  const seed = fromEnv !== undefined && fromEnv !== ""
    ? Number(fromEnv)
    : Math.floor(Math.random() * 0x7fffffff);
  assert.ok(Number.isSafeInteger(seed), `FUZZ_SEED must be an integer, got "${fromEnv}"`);
  console.log(`fuzz seed ${seed} — replay: FUZZ_SEED=${seed} deno test -A tests/fuzz/${file}`);
  return seed;
}

/** Runs per property: FUZZ_RUNS when set, else `defaultRuns` (kept small for CI). */
export function fuzzRuns(defaultRuns: number): number {
  const fromEnv = Deno.env.get("FUZZ_RUNS");
  if (fromEnv === undefined || fromEnv === "") return defaultRuns;
  const runs = Number(fromEnv);
  assert.ok(Number.isSafeInteger(runs) && runs > 0, `FUZZ_RUNS must be > 0, got "${fromEnv}"`);
  return runs;
}

/** A 500 `internal_error` seen while fuzzing: allowed by the invariant, but a bug to report. */
export interface InternalErrorFinding {
  what: string;
  status: number;
  request: string;
}

/** The daemon under fuzz, with the sessions the generators aim at. */
export interface FuzzDaemon {
  readonly home: string;
  readonly socket: string;
  readonly project: string;
  /** A running session that reads (and discards) its stdin: input lands here. */
  readonly sinkId: string;
  /** A second running session, for kill. */
  readonly victimId: string;
  /** A session that has ended. */
  readonly endedId: string;
  /** Every `internal_error` reply seen (reported at the end of each test). */
  readonly internalErrors: InternalErrorFinding[];
  /** How many replies of each status were seen (0: closed without an answer). */
  readonly statusCounts: Map<number, number>;
  /** True while the `svc serve` process runs. */
  running(): boolean;
  /** `svc serve`'s stderr so far (its log). */
  stderr(): string;
  /** Sends raw bytes with the per-request timeout and checks the reply's invariants. */
  send(what: string, bytes: Uint8Array, options?: SendOptions): Promise<RawReply>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The per-request timeout: any request unanswered after this is a hang. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** 5xx codes the contract documents (api.md §3); anything else 5xx is a failure. */
const DOCUMENTED_5XX = new Set([
  "internal_error",
  "launch_failed",
  "context_admission_unavailable",
  "not_implemented", // A transfer coding the framing does not know (RFC 9112 §6.1).
  "http_version_not_supported", // HTTP/2.0 and other majors in a request line (RFC 9110 §15.6.6).
  "too_many_connections",
  "store_unavailable",
  "server_busy",
]);

/**
 * The reply invariants: a status line, no undocumented 5xx, an error
 * envelope with `code`, `message` and an object `details` on every JSON
 * error, and never a stack trace in a body.
 */
export function checkReply(what: string, reply: RawReply, findings: InternalErrorFinding[]) {
  const body = reply.body as Json | null;
  if (reply.status >= 500) {
    const code = body?.error?.code;
    assert.ok(
      DOCUMENTED_5XX.has(code),
      `${what}: ${reply.status} with code ${JSON.stringify(code)}: ${reply.text.slice(0, 500)}`,
    );
    if (code === "internal_error") {
      findings.push({ what, status: reply.status, request: what });
      assert.deepEqual(body!.error.details, {}, `${what}: internal_error details`);
    }
  }
  assert.doesNotMatch(reply.text, /\n\s+at .+:\d+:\d+/, `${what}: a stack trace in the body`);
  // Every refusal, the HTTP layer's own included (issue 13), is the JSON envelope; a HEAD answer
  // has no body, and the restricted launch refuses in its own shape (C4.3).
  const refusalShape = body !== null && typeof body === "object" && "decision" in body;
  if (reply.status >= 400 && !what.startsWith("HEAD ") && !refusalShape) {
    assert.ok(
      body !== null && typeof body === "object" && "error" in body,
      `${what}: ${reply.status} without the JSON envelope: ${
        JSON.stringify(reply.text.slice(0, 200))
      }`,
    );
    assert.equal(typeof body.error.code, "string", `${what}: error.code`);
    assert.equal(typeof body.error.message, "string", `${what}: error.message`);
    assert.ok(
      body.error.details !== null && typeof body.error.details === "object" &&
        !Array.isArray(body.error.details),
      `${what}: error.details is an object`,
    );
  }
  if (reply.headers.get("content-type")?.startsWith("application/json")) {
    assert.ok(reply.headers.has("svc-instance"), `${what}: Svc-Instance header`);
  }
}

/**
 * Starts `svc serve` on a fresh home with three cheap harnesses: `true`
 * (/bin/true), `sink` (reads stdin to /dev/null) and `sleeper`; no built-in
 * is installed, and the legacy import reads an empty CODEX_HOME.
 */
export async function startFuzzDaemon(): Promise<FuzzDaemon> {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const codexHome = await tempHome();
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({
      harnesses: {
        true: { command: ["/bin/true"], prompt: "none" },
        sink: { command: ["/bin/sh", "-c", "cat >/dev/null"], prompt: "none" },
        sleeper: { command: ["/bin/sh", "-c", "sleep 120"], prompt: "none" },
      },
    }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "serve", "--home", home],
    // A host zone with DST, so `timezone: "local"` rules meet gaps and repeated hours.
    env: { NO_COLOR: "1", CODEX_HOME: codexHome, TZ: "America/New_York" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  let exited = false;
  child.status.then(() => exited = true);
  const socket = `${home}/svc.sock`;
  const deadline = Date.now() + 20_000;
  while (!exited && !(await healthy(socket, 1000))) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(!exited && await healthy(socket), `svc serve did not start:\n${log}`);

  const internalErrors: InternalErrorFinding[] = [];
  const statusCounts = new Map<number, number>();
  const launch = async (harness: string) => {
    const reply = await sendRaw(
      socket,
      jsonRequest("POST", "/api/v1/sessions", { projectRoot: project, harness, prompt: "x" }),
    );
    assert.equal(reply.status, 201, reply.text);
    return (reply.body as Json).id as string;
  };
  const sinkId = await launch("sink");
  const victimId = await launch("sleeper");
  const endedId = await launch("true");
  for (let i = 0; i < 200; i++) {
    const reply = await sendRaw(socket, jsonRequest("GET", `/api/v1/sessions/${endedId}`));
    if ((reply.body as Json).status !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }

  return {
    home,
    socket,
    project,
    sinkId,
    victimId,
    endedId,
    internalErrors,
    statusCounts,
    running: () => !exited,
    stderr: () => log,
    async send(what, bytes, options = {}) {
      assert.ok(!exited, `the daemon exited before: ${what}\n${log.slice(-3000)}`);
      let reply: RawReply;
      try {
        reply = await sendRaw(socket, bytes, { timeoutMs: REQUEST_TIMEOUT_MS, ...options });
      } catch (error) {
        throw new Error(`${what}: ${(error as Error).message}`);
      }
      statusCounts.set(reply.status, (statusCounts.get(reply.status) ?? 0) + 1);
      checkReply(what, reply, internalErrors);
      assert.ok(!exited, `the daemon exited after: ${what}\n${log.slice(-3000)}`);
      return reply;
    },
    async [Symbol.asyncDispose]() {
      if (!exited) {
        try {
          child.kill("SIGTERM");
        } catch { /* exited meanwhile */ }
      }
      const status = await child.status;
      await reading;
      await removeTree(home);
      await removeTree(project);
      await removeTree(codexHome);
      assert.equal(status.code, 0, `svc serve did not stop cleanly:\n${log.slice(-3000)}`);
    },
  };
}

/**
 * After a property: the daemon still runs and answers `/health` (within the
 * per-request timeout: only a hang fails, never a slow answer).
 */
export async function assertAlive(daemon: FuzzDaemon): Promise<void> {
  assert.ok(daemon.running(), `the daemon exited:\n${daemon.stderr().slice(-3000)}`);
  assert.ok(
    await healthy(daemon.socket, REQUEST_TIMEOUT_MS),
    `the daemon no longer answers /health with 200 (it hangs after ${REQUEST_TIMEOUT_MS} ms)`,
  );
}

/**
 * Prints the statuses seen and the internal_error replies (bugs to report;
 * they do not fail the run: the invariant allows `internal_error`).
 */
export function report(daemon: FuzzDaemon, name: string): void {
  const statuses = [...daemon.statusCounts].sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`).join(" ");
  console.log(`${name}: replies by status: ${statuses}`);
  if (daemon.internalErrors.length === 0) return;
  const distinct = [...new Set(daemon.internalErrors.map((f) => f.what.slice(0, 300)))];
  // The daemon logs each unexpected error with its message: group the 500s by cause.
  const causes = new Map<string, number>();
  for (const line of daemon.stderr().split("\n")) {
    if (!line.includes(" ERROR ")) continue;
    const message = /"message":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line.slice(0, 120);
    const cause = message.replace(/'[^']*'/g, "'…'").slice(0, 120);
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  console.warn(
    `${name}: ${daemon.internalErrors.length} internal_error replies (500) — bugs to report.\n` +
      `  causes in the daemon log: ${JSON.stringify(Object.fromEntries(causes))}\n` +
      distinct.slice(0, 5).map((what) => `  - ${what}`).join("\n"),
  );
}

const encoder = new TextEncoder();

/** A well-formed request with a JSON body (any value) and `Connection: close`. */
export function jsonRequest(method: string, path: string, body?: unknown): Uint8Array {
  return rawRequest(method, path, body === undefined ? undefined : JSON.stringify(body));
}

/** A request with a body given as text or bytes (sent as is, with its length). */
export function rawRequest(
  method: string,
  path: string,
  body?: string | Uint8Array,
  headers: string[] = [],
): Uint8Array {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const lines = [`${method} ${path} HTTP/1.1`, "Host: localhost", "Connection: close", ...headers];
  if (bytes !== undefined) {
    if (!headers.some((h) => /^content-type:/i.test(h))) {
      lines.push("Content-Type: application/json");
    }
    lines.push(`Content-Length: ${bytes.length}`);
  }
  const head = encoder.encode(lines.join("\r\n") + "\r\n\r\n");
  const out = new Uint8Array(head.length + (bytes?.length ?? 0));
  out.set(head);
  if (bytes) out.set(bytes, head.length);
  return out;
}

/** A printable form of a request for failure messages (bytes beyond ASCII as \xNN). */
export function describe(bytes: Uint8Array, max = 400): string {
  let text = "";
  for (const byte of bytes.subarray(0, max)) {
    text += byte >= 0x20 && byte < 0x7f
      ? String.fromCharCode(byte)
      : byte === 0x0d
      ? "\\r"
      : byte === 0x0a
      ? "\\n"
      : `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  return bytes.length > max ? `${text}… (${bytes.length} bytes)` : text;
}

/** True for paths that would stop the daemon (POST /shutdown), however spelled. */
export function reachesShutdown(path: string): boolean {
  const variants = [path.toLowerCase()];
  try {
    variants.push(decodeURIComponent(path).toLowerCase());
  } catch { /* undecodable */ }
  try {
    variants.push(new URL(path, "http://localhost").pathname.toLowerCase());
  } catch { /* not a URL path */ }
  return variants.some((variant) => variant.includes("shut"));
}
