import { ClientError, type SvcClient } from "../client/client.ts";
import { LOCAL_CONTEXT } from "../contexts/contexts_file.ts";
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
    const { client, socket, context } = await connect(values.home, io);
    try {
      const response = await client.post("/shutdown", {});
      if (!response.ok) {
        io.err(terminalSafe(`svc refused to stop: ${JSON.stringify(response.body)}`));
        return EXIT.refused;
      }
      // The daemon holds svc.lock until its very last step: free lock = fully stopped.
      // Another machine's lock is out of reach: there, stopped is no longer answering.
      const stopped = context === LOCAL_CONTEXT
        ? () => lockIsFree(homePaths(resolveCliHome(values.home, io)).lock)
        : () => answersNoMore(client);
      const deadline = Date.now() + STOP_WAIT_MS;
      while (Date.now() < deadline) {
        if (await stopped()) {
          io.out("svc stopped");
          return EXIT.ok;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      io.err(`svc did not stop within ${STOP_WAIT_MS / 1000}s`);
      return EXIT.refused;
    } catch (error) {
      if (error instanceof ClientError && error.code === "unreachable") {
        if (context !== LOCAL_CONTEXT) throw error;
        io.err(`svc is not running: no daemon answers on "${socket}"`);
        return EXIT.unreachable;
      }
      throw error;
    } finally {
      client.close();
    }
  },
};

/** Whether the daemon behind `client` has gone: its health no longer answers. */
async function answersNoMore(client: SvcClient): Promise<boolean> {
  try {
    await client.health();
    return false;
  } catch (error) {
    if (error instanceof ClientError && error.code === "unreachable") return true;
    throw error;
  }
}

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
