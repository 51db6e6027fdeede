/**
 * A test daemon on a fake clock whose config holds the scripted agent,
 * notification `channels` and a web origin (D31), with a project directory.
 */
import { FakeClock } from "../fakes/clock.ts";
import { startTestDaemon, type TestDaemon } from "./daemon.ts";
import { tempHome } from "./home.ts";
import { agentConfig } from "./scripted_agent.ts";
import { removeTree } from "./home.ts";
import { startReceiver, type WebhookReceiver } from "./webhook_receiver.ts";

type Json = Record<string, unknown>;

/** The web origin notifications link to. */
export const ORIGIN = "https://box.example.ts.net";

/** Starts it at 2026-03-01T10:00:00Z; the caller removes `project`. */
export async function notifyingDaemon(
  channels: Json[],
  afterSeconds: number,
): Promise<{ clock: FakeClock; project: string; t: TestDaemon }> {
  const clock = new FakeClock(Date.parse("2026-03-01T10:00:00Z"));
  const project = await Deno.realPath(await tempHome());
  const t = await startTestDaemon({
    clock,
    scheduler: false,
    configJson: agentConfig({
      notifications: { afterSeconds, channels },
      web: { origins: [ORIGIN] },
    }),
  });
  return { clock, project, t };
}

/** A notifying daemon whose one channel is a json webhook to a local receiver; disposing ends all three. */
export async function hookedDaemon(
  afterSeconds: number,
  channel: Json = {},
): Promise<
  { clock: FakeClock; project: string; t: TestDaemon; receiver: WebhookReceiver } & AsyncDisposable
> {
  const receiver = startReceiver();
  const { clock, project, t } = await notifyingDaemon(
    [{ kind: "webhook", url: receiver.url, ...channel }],
    afterSeconds,
  );
  return {
    clock,
    project,
    t,
    receiver,
    async [Symbol.asyncDispose]() {
      await t[Symbol.asyncDispose]();
      await receiver[Symbol.asyncDispose]();
      await removeTree(project);
    },
  };
}

/**
 * Waits (real time, 20 s at most) until the notification log holds `count`
 * outcomes. A receiver has a request before the daemon has its answer, and a
 * try still in flight when the fake clock jumps past its 5 s timeout is
 * abandoned and tried again (D31): jump only once the outcome is logged.
 */
export async function waitForLogged(t: TestDaemon, count: number): Promise<Json[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { entries } = (await t.client.get<{ entries: Json[] }>("/notifications")).body;
    if (entries.length >= count) return entries;
    if (Date.now() > deadline) throw new Error(`${entries.length} of ${count} outcomes logged`);
    await settle(20);
  }
}

/** Lets the daemon's microtasks and loopback requests run (real time). */
export function settle(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
