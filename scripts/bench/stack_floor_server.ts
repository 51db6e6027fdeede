/**
 * The idle-RSS floor of svc's decided stack with none of svc's own code
 * (issue 26): what a daemon on Deno 2.9 with zod, smol-toml, node:sqlite,
 * node:util and Temporal loads and touches before it can answer, then the
 * bare server's fixed answer through `Deno.serve`. Each library is used
 * once, as the daemon's start uses it (a config parsed and validated, a WAL
 * store opened and written, the host's time zone read), so its code is
 * evaluated, not only fetched. The bench's `start` stage measures it in the
 * same runs as svc and the bare program: svc's own modules and state are
 * what lies above it.
 *
 *   deno run -A scripts/bench/stack_floor_server.ts SOCKET BODY_FILE DIR
 */
import { z } from "zod";
import { parse } from "smol-toml";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { join } from "node:path";

const { positionals: [socket, bodyFile, dir] } = parseArgs({ allowPositionals: true });
const config = z.object({ port: z.number().int() }).parse(parse("port = 1"));
const db = new DatabaseSync(join(dir, "floor.db"));
db.exec("PRAGMA journal_mode = WAL");
db.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
db.prepare("INSERT INTO events (payload) VALUES (?)").run(JSON.stringify(config));
const zone = Temporal.Now.timeZoneId();
const body = Deno.readTextFileSync(bodyFile);
const headers = { "content-type": "application/json; charset=utf-8" };
const server = Deno.serve(
  { path: socket, onListen: () => {} },
  (_req) => new Response(body, { status: 200, headers }),
);
const stop = () => {
  db.close();
  void server.shutdown();
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
console.error(`stack floor up (time zone ${zone})`);
await server.finished;
