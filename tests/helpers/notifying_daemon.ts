/**
 * A test daemon on a fake clock whose config holds the scripted agent,
 * notification `channels` and a web origin (D31), with a project directory.
 */
import { FakeClock } from "../fakes/clock.ts";
import { startTestDaemon, type TestDaemon } from "./daemon.ts";
import { tempHome } from "./home.ts";
import { agentConfig } from "./scripted_agent.ts";

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
      // Stalls are tested in tests/notify/triggers_test.ts; here the fake clock jumps minutes.
      ui: { stalledAfterSeconds: 86_400 },
    }),
  });
  return { clock, project, t };
}

/** Lets the daemon's microtasks and loopback requests run (real time). */
export function settle(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
