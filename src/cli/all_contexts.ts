/**
 * `--all-contexts` (D32): one list read from `local` and every context of
 * the contexts file at once, printed as one table with a CONTEXT column.
 * A context that does not answer is one line on stderr naming it; the
 * others are still printed.
 */
import { ClientError, type ClientResponse, type SvcClient } from "../client/client.ts";
import { allContexts } from "../contexts/selection.ts";
import { EXIT, type Io } from "./command.ts";
import { connectTo } from "./connect.ts";
import { describeError, table } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";

/** How one command reads and shows its list. */
export interface ContextList<T, Item> {
  /** The daemon call (a `GET` or an action). */
  read(client: SvcClient): Promise<ClientResponse<T>>;
  /** The listed items of a successful answer. */
  items(body: T): Item[];
  headers: string[];
  row(item: Item): string[];
}

/**
 * Reads `list` from every context (in parallel) and prints it: `--json` as
 * one array whose items carry a `context` field, else a table. Exits 0 when
 * every context answered, else with the code of the last that failed (3 when
 * unreachable, 1 when it refused).
 */
export async function printAllContexts<T, Item>(
  io: Io,
  { home, json }: { home?: string; json?: boolean },
  list: ContextList<T, Item>,
): Promise<number> {
  const contexts = await allContexts(io.env);
  const answers = await Promise.all(contexts.map(async (context) => {
    const { client } = await connectTo(context, "endpoint" in context ? undefined : home, io);
    try {
      return { context: context.name, response: await list.read(client), failure: null };
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      return { context: context.name, response: null, failure: error };
    } finally {
      client.close();
    }
  }));
  let code: number = EXIT.ok;
  const rows: Array<{ context: string; item: Item }> = [];
  for (const answer of answers) {
    if (answer.failure !== null) {
      io.err(terminalSafe(`${answer.context}: ${answer.failure.message}`));
      code = answer.failure.code === "unreachable" ? EXIT.unreachable : EXIT.refused;
    } else if (!answer.response.ok) {
      io.err(`${answer.context}: ${describeError(answer.response.body)}`);
      code = EXIT.refused;
    } else {
      for (const item of list.items(answer.response.body)) {
        rows.push({ context: answer.context, item });
      }
    }
  }
  if (json) {
    io.out(JSON.stringify(rows.map(({ context, item }) => ({ context, ...item })), null, 2));
  } else {
    io.out(
      table(
        ["CONTEXT", ...list.headers],
        rows.map(({ context, item }) => [context, ...list.row(item)]),
      ),
    );
  }
  return code;
}
