/**
 * The common steps of the real-CLI parking tests (D33, parking_test.ts): an
 * in-process daemon with a FakeClock whose sessions run one pinned CLI
 * against the fake provider; a conversation whose second turn the provider
 * answers with that provider's limit, so the session parks; and the check
 * that the resumed agent's next request carries the whole conversation plus
 * the re-sent turn. Per CLI, `LIMIT_CASES` says which answer is used and what
 * park svc makes of it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentsDir } from "../../scripts/agents_install.ts";
import { systemProber } from "../../src/sessions/harness_probe.ts";
import { FakeClock } from "../fakes/clock.ts";
import { restartTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import type { Harness } from "./agent_bins.ts";
import { AGENT_MODELS, prepareAgentEnv } from "./agent_env.ts";
import { requireAgent } from "./agents_gate.ts";
import {
  conversationTexts,
  type FakeProvider,
  type Reply,
  startFakeProvider,
} from "./fake_provider.ts";
import {
  anthropicUsageLimit,
  codexUsageLimit,
  geminiDailyQuota,
  openaiInsufficientQuota,
} from "./provider_limits.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

/** How far the provider's reset is from the start, for the CLIs that are told one. */
const RESET_IN_S = 3600;
/** svc's first backoff step (park_record.ts): the wait when the agent names no reset time. */
const FIRST_BACKOFF_MS = 60_000;
/** `random: () => 0.5` gives half of the 60 s jitter. */
const JITTER_MS = 30_000;

/** One CLI's limit: the provider's answer and the park svc makes of it. */
interface LimitCase {
  /** Variables for the CLI beyond its offline environment (claude's subscription login). */
  readonly env: Record<string, string | undefined>;
  /** The replies answering the limited turn. */
  answers(nowS: number, resetS: number): Reply[];
  /** `parkedUntil`, in ms: the reset the CLI reports, else svc's first backoff step. */
  until(nowMs: number, resetS: number): number;
  /**
   * The texts of the resumed agent's first request, system reminders left
   * out: the conversation as the CLI kept it, then the re-sent turn.
   */
  readonly resent: readonly string[];
  /** How long the CLI takes to give up on the limit. */
  readonly parkTimeoutMs: number;
}

const TOLD = (_now: number, resetS: number) => resetS * 1000;
const BACKOFF = (now: number) => now + FIRST_BACKOFF_MS;

/** Per CLI: the provider answer that makes it give up soonest (docs/harnesses.md "Limits"). */
export const LIMIT_CASES: Readonly<Record<Harness, LimitCase>> = {
  claude: {
    // A subscription's login, as recorded: claude then reports the reset time and does not retry.
    env: { ANTHROPIC_API_KEY: undefined, CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-fake" },
    answers: (_now, resetS) => [anthropicUsageLimit(resetS)],
    until: TOLD,
    // claude's own transcript keeps the turn the limit failed; svc sends it again after it.
    resent: ["first question", "first answer", "second question", "second question"],
    parkTimeoutMs: 60_000,
  },
  codex: {
    env: {},
    answers: (nowS, resetS) => [codexUsageLimit(resetS, nowS)],
    until: TOLD,
    resent: ["first question", "first answer", "second question", "second question"],
    parkTimeoutMs: 60_000,
  },
  gemini: {
    env: {},
    answers: () => [geminiDailyQuota()],
    until: BACKOFF,
    // gemini does not record a turn that failed: the re-sent turn is its only copy.
    resent: ["first question", "first answer", "second question"],
    parkTimeoutMs: 60_000,
  },
  opencode: {
    env: {},
    // opencode retries every 429 (6 tries in the recording); the extra answers are dropped.
    answers: () => Array.from({ length: 10 }, openaiInsufficientQuota),
    until: BACKOFF,
    resent: ["first question", "first answer", "second question", "second question"],
    parkTimeoutMs: 150_000,
  },
};

/** Sets the test process's environment (the in-process daemon's children inherit it); undoes it. */
function useEnv(env: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, Deno.env.get(key)]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) Deno.env.delete(key);
      else Deno.env.set(key, value);
    }
  };
  apply(env);
  return () => apply(saved);
}

/** Payloads of a session's events of `kind`, once there are `count`. */
export async function eventsOf(
  t: TestDaemon,
  id: string,
  kind: string,
  count = 1,
  timeoutMs = 60_000,
): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await t.client.get<{ events: Json[] }>(`/sessions/${id}/events?kinds=${kind}`);
    const events = page.body.events.map((event) => JSON.parse(event.payload_json as string));
    if (events.length >= count) return events;
    assert.ok(Date.now() < deadline, `${count} ${kind} of ${id} in time: ${events.length}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One CLI, its fake provider, a FakeClock and the in-process daemon on one home. */
export class ParkingRig implements AsyncDisposable {
  readonly clock = new FakeClock(Date.now());
  readonly resetS = Math.floor(this.clock.now() / 1000) + RESET_IN_S;
  readonly case: LimitCase;
  daemon: TestDaemon | null = null;
  /** The real time the park was seen: gemini may load only in a later UTC minute. */
  #parkedAtReal = 0;
  /** Provider requests before the resume. */
  #limited = 0;

  private constructor(
    readonly cli: Harness,
    readonly provider: FakeProvider,
    readonly home: string,
    readonly project: string,
    readonly envDir: string,
    readonly restoreEnv: () => void,
  ) {
    this.case = LIMIT_CASES[cli];
  }

  static async create(cli: Harness): Promise<ParkingRig> {
    requireAgent(cli);
    const provider = await startFakeProvider();
    const envDir = join(agentsDir(), "homes", crypto.randomUUID());
    await Deno.mkdir(envDir, { recursive: true });
    const agentEnv = await prepareAgentEnv(cli, { providerUrl: provider.url, dir: envDir });
    const restoreEnv = useEnv({ ...agentEnv, ...LIMIT_CASES[cli].env });
    const home = await tempHome();
    const project = await Deno.realPath(await tempHome());
    return new ParkingRig(cli, provider, home, project, envDir, restoreEnv);
  }

  /** Starts (or starts again, on the same home) the daemon with `autoResume` on or off. */
  async start(autoResume: boolean): Promise<TestDaemon> {
    this.daemon = await restartTestDaemon({
      home: this.home,
      clock: this.clock,
      random: () => 0.5,
      prober: systemProber(),
      configJson: { autoResume: { enabled: autoResume } },
    });
    return this.daemon;
  }

  async stop(): Promise<void> {
    const daemon = this.daemon;
    this.daemon = null;
    await daemon?.[Symbol.asyncDispose]();
  }

  get t(): TestDaemon {
    assert.ok(this.daemon, "the daemon is running");
    return this.daemon;
  }

  /**
   * A first turn answered, a second answered with the provider's limit: the
   * session ends parked. Returns its id and record.
   */
  async parkConversation(): Promise<{ id: string; parked: Any }> {
    const { t, provider, clock } = this;
    const nowS = Math.floor(clock.now() / 1000);
    provider.script([{ text: "first answer" }, ...this.case.answers(nowS, this.resetS)]);
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: this.project,
      harness: this.cli,
      prompt: "first question",
      ...(this.cli === "gemini" ? { model: AGENT_MODELS.gemini } : {}),
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    const id = launched.body.id as string;
    const [first] = await eventsOf(t, id, "agent.turn", 1);
    assert.equal(first.status, "completed", JSON.stringify(first));
    const input = await t.client.post<Json>(`/sessions/${id}/input`, { data: "second question" });
    assert.ok(input.status < 300, JSON.stringify(input.body));

    const parked = await waitForEnd(t.client, id, this.case.parkTimeoutMs) as Any;
    this.#parkedAtReal = Date.now();
    assert.equal(parked.status, "parked", JSON.stringify(parked));
    provider.clearScript();
    provider.script([{ text: "second answer" }]); // For the resumed agent's re-sent turn.
    this.#limited = provider.requests.length;
    return { id, parked };
  }

  /** `parked` of the record as this CLI's limit makes it, the timer `waiting` or `off`. */
  expectedPark(autoResume: boolean): Json {
    const until = this.case.until(this.clock.now(), this.resetS);
    return {
      until: new Date(until).toISOString(),
      reason: "usage_limit",
      autoResume: autoResume
        ? { state: "waiting", at: new Date(until + JITTER_MS).toISOString(), note: null }
        : { state: "off", at: null, note: null },
    };
  }

  /**
   * Gemini CLI 0.61 loses a session loaded in the UTC minute its recording
   * started (svc waits for it by its own clock, which the test moves): the
   * resume must come in a later real minute than the park.
   */
  async crossMinute(): Promise<void> {
    if (this.cli !== "gemini") return;
    const wait = (Math.floor(this.#parkedAtReal / 60_000) + 1) * 60_000 + 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Moves the FakeClock past the park's timer (`parkedUntil` plus the whole jitter). */
  async passResumeTime(): Promise<void> {
    const until = this.case.until(this.clock.now(), this.resetS);
    await this.clock.advance(until + 60_000 + 1 - this.clock.now());
  }

  /**
   * The resumed agent's first request carries the conversation and the
   * re-sent turn, which completes with the next answer.
   */
  async expectResent(id: string, turnsBefore: number): Promise<void> {
    // An ACP agent's loaded conversation waits for 500 ms of silence by the daemon's clock (D26).
    const ticking = this.#tick();
    const resent = await this.provider.waitForRequest(
      (request) => !request.side && request.index >= this.#limited,
      90_000,
    ).catch(async (error) => {
      throw new Error(`${error.message}; the session's log:\n${await this.log(id)}`);
    }).finally(() => ticking.abort());
    const texts = conversationTexts(resent)
      .filter((text) => !text.startsWith("<"))
      .map((text) => text.trim());
    assert.deepEqual(texts, this.case.resent, JSON.stringify(conversationTexts(resent)));
    assert.equal(conversationTexts(resent).at(-1), "second question", "the re-sent turn, exactly");
    const turns = await eventsOf(this.t, id, "agent.turn", turnsBefore + 1);
    const last = turns[turnsBefore];
    assert.equal(last.status, "completed", JSON.stringify(last));
    assert.equal(last.result, "second answer");
  }

  /** Moves the FakeClock 100 ms every 50 ms, as time goes on, until aborted. */
  #tick(): AbortController {
    const ticking = new AbortController();
    (async () => {
      while (!ticking.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await this.clock.advance(100);
      }
    })();
    return ticking;
  }

  /** The session's events since its first turn, one a line: explains a resume that failed. */
  async log(id: string): Promise<string> {
    const page = await this.t.client.get<{ events: Json[] }>(`/sessions/${id}/events`);
    return page.body.events.slice(4)
      .map((event) => `${event.kind} ${String(event.payload_json).slice(0, 400)}`)
      .join("\n");
  }

  /** No request reached the provider since the park. */
  expectNoResume(): void {
    const since = this.provider.requests.slice(this.#limited).filter((request) => !request.side);
    assert.deepEqual(since.map((request) => request.index), [], "no request since the park");
  }

  /** Closes the session and waits for its end. */
  async close(id: string): Promise<void> {
    await this.t.client.post(`/sessions/${id}/close`, {});
    const ended = await waitForEnd(this.t.client, id, 30_000);
    assert.equal(ended.status, "completed", JSON.stringify(ended));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.stop();
    } finally {
      this.restoreEnv();
      await this.provider.close();
      await removeTree(this.home);
      await removeTree(this.project);
      await removeTree(this.envDir);
    }
  }
}
