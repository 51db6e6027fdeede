/**
 * The real-CLI tests run when asked for: `deno task test:agents` (any `deno
 * test` naming a path under tests/real_agents), or SVC_AGENT_TESTS=1. In a
 * plain `deno task test` they show as `ignored`. When asked for, a CLI that
 * is not installed fails the test loudly: install them with
 * `deno task agents:install`.
 */
import { findAgentBin, type Harness } from "./agent_bins.ts";

function requested(): boolean {
  if (Deno.env.get("SVC_AGENT_TESTS") === "1") return true;
  try {
    return Deno.readTextFileSync("/proc/self/cmdline").split("\0")
      .some((arg) => arg.includes("real_agents"));
  } catch {
    return false; // No /proc: only the variable turns them on.
  }
}

/** True when the real-CLI tests should run in this `deno test`. */
export const runAgentTests: boolean = requested();

/** Throws, naming the fix, when `cli` is not installed. */
export function requireAgent(cli: Harness): void {
  if (findAgentBin(cli) === null) {
    throw new Error(`The ${cli} CLI is not installed: run "deno task agents:install" first`);
  }
}
