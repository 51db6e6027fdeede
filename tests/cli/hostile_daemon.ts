/**
 * A fake daemon on a home's socket whose every answer carries terminal
 * escapes in every string field (issue 28 item 6), for proving that no
 * printer of the CLI lets one reach the terminal. Times stay valid ISO
 * instants, since the CLI parses them.
 */
import { removeTree, tempHome } from "../helpers/home.ts";

/** Title change, clear screen, clipboard write and a C1 CSI: what a hostile agent would send. */
export const HOSTILE = "\x1b]0;T\x07\x1b[2J\x1b]52;c;QQ==\x07\x9b";
/** `HOSTILE` as `terminalSafe()` shows it. */
export const HOSTILE_SHOWN = "^[]0;T^G^[[2J^[]52;c;QQ==^G<U+009B>";

/** Fields the CLI parses as instants: left valid. */
const TIME_FIELDS = new Set([
  "scheduledFor",
  "startedAt",
  "nextDueAt",
  "lastPlannedAt",
  "lastRunAt",
  "lastSuccessAt",
  "expiresAt",
  "requestedAt",
]);

/** `value` with `HOSTILE` appended to every string at any depth, but the instants. */
export function hostile<T>(value: T, key = ""): T {
  if (typeof value === "string") return (TIME_FIELDS.has(key) ? value : value + HOSTILE) as T;
  if (Array.isArray(value)) return value.map((item) => hostile(item, key)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, hostile(item, name)]),
    ) as T;
  }
  return value;
}

const AT = "2026-11-23T10:00:00Z";
const USAGE = { inputTokens: 120, outputTokens: 40, cachedInputTokens: 20, costUsd: 0.01 };

/** A session record; `protocol` is left as given so the CLI picks its printer. */
export function hostileSession(protocol: string): Record<string, unknown> {
  return {
    ...hostile({
      id: "ses_1",
      status: "failed",
      harness: "claude",
      title: "Fix\nthe\ttests",
      created_at: AT,
      cwd: "/p",
      model: "opus",
      worktree: { path: "/w", branch: "svc/session/ses_1" },
    }),
    protocol,
    pid: 42,
    last_seq: 1000,
    usage: USAGE,
  };
}

/** One record of every kind the transcript knows, and one it does not. */
export function hostileEvents(): Array<Record<string, unknown>> {
  const payloads: Array<[string, unknown]> = [
    ["session.started", { harness: "claude", pid: 42 }],
    ["run.linked", { runId: "run_1", routineId: "nightly" }],
    ["agent.started", {
      protocol: "claude",
      model: "opus",
      agentVersion: "2.0",
      agentSessionId: "a1",
    }],
    ["agent.message", { role: "user", text: "fix\nit" }],
    ["agent.message", { role: "assistant", text: "Done.\r\nTwo files." }],
    ["agent.tool", { callId: "c1", name: "Bash", status: "started", input: '{"command":"ls"}' }],
    ["agent.tool", { callId: "c1", status: "completed", output: "a\nb" }],
    ["agent.tool", { callId: "c2", name: "Read", status: "failed", input: "x", output: "no" }],
    ["agent.tool", { callId: "c3", name: "Edit", status: "declined", input: "y" }],
    ["agent.permission", { requestId: "req_1", tool: "Bash", summary: "Bash: touch x" }],
    ["agent.permission", { requestId: "req_2", tool: "Write", summary: "" }],
    ["agent.permission.resolved", { requestId: "req_1", decision: "allow", by: "owner" }],
    ["agent.permission.resolved", { requestId: "req_2", decision: "deny", by: "policy" }],
    // Still waiting when the log ends: `svc attach` asks it.
    ["agent.permission", { requestId: "req_3", tool: "Bash", summary: "rm -rf /" }],
    ["agent.turn", {
      turn: 1,
      status: "failed",
      reason: "timeout",
      result: "the result",
      usage: USAGE,
      durationMs: 1200,
    }],
    ["agent.turn", { turn: 2, status: "interrupted", reason: "user", result: null }],
    ["agent.turn", { turn: 3, status: "completed", reason: "end_turn", result: "ok" }],
    ["agent.error", { message: "boom\nagain" }],
    ["input", { data: "yes\n" }],
    ["future.kind", { note: "new" }],
    ["session.ended", { status: "failed", exitCode: 1, signal: "SIGTERM", error: "crashed" }],
  ];
  return payloads.map(([kind, payload], i) => ({
    seq: i + 1,
    session_id: "ses_1",
    kind: kind === "future.kind" ? kind + HOSTILE : kind,
    ts: AT,
    payload_json: JSON.stringify(hostile(payload)),
  }));
}

/** Every kind of notice of the daemon-wide feed (D19), and one this CLI does not know. */
export function hostileNotices(): Array<[string, Record<string, unknown>]> {
  return [
    ["session.created", { sessionId: "ses_1", harness: "claude", status: "running" }],
    ["session.updated", { sessionId: "ses_1", status: "running", activity: "working" }],
    ["approval.requested", { sessionId: "ses_1", requestId: "req_1", tool: "Bash" }],
    ["approval.resolved", { sessionId: "ses_1", requestId: "req_1", decision: "allow", by: "o" }],
    ["automations.changed", { action: "svc.automations.create" }],
    ["run.started", { runId: "run_1", routineId: "nightly", sessionId: "ses_1" }],
    ["run.ended", { runId: "run_1", routineId: "nightly", sessionId: "ses_1", status: "failed" }],
    ["future.kind" + HOSTILE, { a: "b" }],
  ].map(([kind, data]) => [kind as string, hostile(data as Record<string, unknown>)]);
}

const routine = (status: string) => ({
  ...hostile({
    id: "nightly",
    name: "Nightly\nbuild",
    rrule: "FREQ=DAILY",
    timezone: "UTC",
    prompt: "run it",
    harness: "claude",
    projectRoot: "/p",
    tags: ["a"],
  }),
  status,
});

const error = { code: "run_failed", message: "it\nfailed" };

/** The `result` of each action the CLI posts. */
const ACTIONS: Record<string, unknown> = {
  "svc.automations.list": { routines: [routine("ACTIVE"), routine("PAUSED")], nextCursor: null },
  "svc.automations.health": hostile({
    id: "nightly",
    status: "ACTIVE",
    nextDueAt: AT,
    lastPlannedAt: AT,
    lastRunAt: AT,
    lastSuccessAt: null,
    consecutiveFailures: 2,
    missedCount: 1,
    lease: { owner: "ins_1", expiresAt: AT },
    stale: "no run for 3 days",
  }),
  "svc.automations.get": { routine: routine("PAUSED") },
  "svc.automations.create": { routine: routine("PAUSED") },
  "svc.automations.update": { routine: routine("ACTIVE") },
  "svc.automations.delete": hostile({ id: "nightly" }),
  "svc.automations.run": hostile({ runId: "run_1", status: "failed", sessionId: "ses_1", error }),
  "svc.automations.runs": {
    runs: [hostile({
      id: "run_1",
      trigger: "schedule",
      status: "failed",
      scheduledFor: AT,
      startedAt: AT,
      sessionId: "ses_1",
      error,
    })],
  },
  "svc.automations.tick": hostile({
    planned: [{ routineId: "nightly", scheduledFor: AT, missed: 2 }],
    recovered: [{ runId: "run_1", routineId: "nightly", error: "lease lost" }],
    claimed: [{ routineId: "nightly", runId: "run_2", scheduledFor: AT, status: "running" }],
    failures: [{ routineId: "nightly", runId: "run_3", error }],
  }),
  "svc.automations.import": hostile({
    imported: ["a"],
    skipped: [{ id: "b", reason: "exists" }],
    failed: [{ file: "c.json", reason: "not\nJSON" }],
  }),
  "svc.automations.inbox": {
    results: [hostile({
      runId: "run_1",
      routineId: "nightly",
      status: "succeeded",
      endedAt: AT,
      path: "/r.md",
      readAt: null,
      headline: "All\ngreen",
    })],
  },
  "svc.automations.result": hostile({ run: { id: "run_1" }, markdown: "# Result\n\n\tcode\n" }),
  "svc.automations.worktrees": {
    worktrees: [hostile({
      sessionId: "ses_1",
      routineId: "nightly",
      runId: "run_1",
      status: "completed",
      worktree: {
        path: "/w",
        branch: "svc/session/ses_1",
        changedFiles: null,
        insertions: null,
        deletions: null,
        uncommittedFiles: null,
        error: "git failed",
      },
    })],
  },
  "svc.automations.prune": {
    removals: hostile([
      { sessionId: "ses_1", path: "/w1", branch: "b1", removed: true, branchDeleted: false },
      { sessionId: "ses_2", path: "/w2", branch: "b2", removed: false, reason: "uncommitted" },
    ]),
  },
  "svc.sessions.approvals": {
    approvals: [hostile({
      sessionId: "ses_1",
      requestId: "req_1",
      tool: "Bash",
      summary: "touch\nx",
      requestedAt: AT,
      expiresAt: "2099-01-01T00:00:00Z",
    })],
  },
  "svc.sessions.approve": hostile({ decision: "allow" }),
};

/** What the fake answers to a request: a status and a JSON body. */
function answer(method: string, path: string, body: Record<string, unknown>): [number, unknown] {
  const refusal = hostile({
    error: { code: "conflict", message: "No\nway", details: { field: "x" } },
  });
  if (path === "/health") {
    return [200, {
      ...hostile({ svcVersion: "1.0", startedAt: AT, tcp: "127.0.0.1:1" }),
      ok: true,
      apiVersion: "svc.daemon.v1",
      instanceId: "ins_1",
      pid: 42,
      uptime: 3,
      endpoint: { transport: "unix", path: "/h/svc.sock" + HOSTILE },
      capabilities: [],
      liveSessions: 1,
    }];
  }
  if (path === "/capabilities") {
    return [200, {
      capabilities: [hostile({ id: "sessions", status: "ok", owner: "svc", policy: "local" })],
    }];
  }
  if (path.startsWith("/usage")) {
    const total = {
      sessions: 1,
      inputTokens: 1,
      cachedInputTokens: null,
      outputTokens: 2,
      costUsd: null,
    };
    return [200, {
      ...hostile({ by: "routine" }),
      since: null,
      groups: [{ ...total, costUsd: 0.5, key: "nightly" + HOSTILE }, { ...total, key: null }],
      total,
    }];
  }
  if (path === "/actions") {
    const action = String(body.action);
    if (!Object.hasOwn(ACTIONS, action)) return [404, refusal];
    return [200, {
      ok: true,
      accepted: true,
      action,
      status: "completed",
      result: ACTIONS[action],
    }];
  }
  if (path.startsWith("/sessions?") || path === "/sessions") {
    return method === "GET" ? [200, [hostileSession("claude")]] : [201, hostileSession("claude")];
  }
  const events = path.match(/^\/sessions\/[^/]+\/events\?/);
  if (events) {
    const all = hostileEvents();
    const afterSeq = Number(new URL(path, "http://x").searchParams.get("afterSeq") ?? 0);
    const page = all.filter((event) => (event.seq as number) > afterSeq);
    return [200, { events: page, nextCursor: { afterSeq: all.length }, hasMore: false }];
  }
  if (/^\/sessions\/[^/]+$/.test(path)) {
    const protocol = path.includes("raw") ? "raw" : "claude";
    return [200, { ...hostileSession(protocol), last_seq: hostileEvents().length }];
  }
  // Streams are refused (`svc events --follow` and chat fall back to long polls); kill, input,
  // close and shutdown refuse, so their error lines are printed too.
  return [
    path.endsWith("/events/stream") ? 404 : 409,
    path.endsWith("/events/stream")
      ? { error: { code: "not_found", message: "No stream" } }
      : refusal,
  ];
}

/** A fake daemon listening on a fresh home's socket. */
export interface HostileDaemon {
  readonly home: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the fake on a new home; `GET /stream` sends every notice, then stays open. */
export async function startHostileDaemon(): Promise<HostileDaemon> {
  const home = await tempHome();
  const server = Deno.serve(
    { path: `${home}/svc.sock`, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const path = url.pathname.replace(/^\/api\/v1/, "") + url.search;
      if (path === "/stream") return feed();
      const body = request.method === "POST" ? await request.json() : {};
      const [status, json] = answer(request.method, path, body);
      return Response.json(json, { status });
    },
  );
  return {
    home,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await removeTree(home);
    },
  };
}

function feed(): Response {
  const text = hostileNotices()
    .map(([kind, data]) => `event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}
