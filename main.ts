import { processIo } from "./src/cli/process_io.ts";
import { runCommand } from "./src/cli/run_command.ts";

/**
 * `svc serve` is the one long-lived command: it loads its own module graph,
 * not every other command's (their clients, terminal UI and probes cost the
 * daemon 10 MB of idle RSS; issue 26, docs/benchmarks.md).
 */
async function main(args: string[]): Promise<number> {
  if (args[0] === "serve") {
    const { serveCommand } = await import("./src/cli/serve.ts");
    return await runCommand(serveCommand, args.slice(1), processIo);
  }
  const { runCli } = await import("./src/cli/main.ts");
  return await runCli(args, processIo);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
