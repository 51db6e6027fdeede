import { ClientError } from "../client/client.ts";
import { homePaths } from "../config/home.ts";
import { resolveCliHome } from "./working_dir.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, EXIT } from "./command.ts";
import { connect } from "./connect.ts";
import { terminalSafe } from "./terminal_text.ts";

const STOP_WAIT_MS = 30_000;

/** `svc stop`: asks the daemon to shut down gracefully and waits until it has (D1). */
export const stopCommand: Command = {
  name: "stop",
  summary: "Stop the running daemon gracefully",
  usage: `Usage: svc stop [--home DIR]

Asks the daemon to shut down (live sessions are ended and recorded as killed)
and waits until it has fully stopped. Exits 3 when no daemon answers.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { home: { type: "string" } });
    const { client, socket } = await connect(values.home, io);
    try {
      const response = await client.post("/shutdown", {});
      if (!response.ok) {
        io.err(terminalSafe(`svc refused to stop: ${JSON.stringify(response.body)}`));
        return EXIT.refused;
      }
    } catch (error) {
      if (error instanceof ClientError && error.code === "unreachable") {
        io.err(`svc is not running: no daemon answers on "${socket}"`);
        return EXIT.unreachable;
      }
      throw error;
    } finally {
      client.close();
    }
    // The daemon holds svc.lock until its very last step: free lock = fully stopped.
    const lockPath = homePaths(resolveCliHome(values.home, io)).lock;
    const deadline = Date.now() + STOP_WAIT_MS;
    while (Date.now() < deadline) {
      if (await lockIsFree(lockPath)) {
        io.out("svc stopped");
        return EXIT.ok;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    io.err(`svc did not stop within ${STOP_WAIT_MS / 1000}s`);
    return EXIT.refused;
  },
};

async function lockIsFree(path: string): Promise<boolean> {
  const file = await Deno.open(path, { read: true, write: true });
  try {
    const locked = await file.tryLock(true);
    if (locked) await file.unlock();
    return locked;
  } finally {
    file.close();
  }
}
