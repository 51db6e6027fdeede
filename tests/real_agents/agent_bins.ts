/**
 * Where the pinned agent CLIs live for the real-agent tests: the cache that
 * `deno task agents:install` fills (see scripts/agents_install.ts).
 */
import { join } from "node:path";
import { agentPackage, agentsBinDir, type Harness } from "../../scripts/agents_install.ts";

export type { Harness };

/** The absolute path of a harness's executable in the cache, or null when it is not installed. */
export function findAgentBin(harness: Harness): string | null {
  const path = join(agentsBinDir(), agentPackage(harness).bin);
  try {
    return Deno.statSync(path).isFile ? path : null;
  } catch {
    return null;
  }
}

/** The cache's bin directory, to put first on a child's PATH. */
export function agentsPath(): string {
  return agentsBinDir();
}
