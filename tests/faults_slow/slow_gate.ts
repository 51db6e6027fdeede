/**
 * `deno task test` runs every test under tests/, this folder included; the
 * slow fault variants only run when asked for: `deno task test:faults` (or
 * any `deno test` naming a path under tests/faults_slow), or SVC_SLOW_TESTS=1.
 * Otherwise they show as `ignored`.
 */
function requested(): boolean {
  if (Deno.env.get("SVC_SLOW_TESTS") === "1") return true;
  try {
    return Deno.readTextFileSync("/proc/self/cmdline").split("\0")
      .some((arg) => arg.includes("faults_slow"));
  } catch {
    return false; // No /proc: only the variable turns them on.
  }
}

/** True when the slow fault variants should run in this `deno test`. */
export const runSlow: boolean = requested();
