/**
 * The baseline of the big-page figure (issue 14): a bare `Deno.serve` on a
 * Unix socket with `node:sqlite` that answers an event page the obvious way
 * (SELECT the rows, `JSON.stringify` the page), nothing else loaded and no
 * checks; `/api/v1/health` answers for readiness.
 *
 *   deno run -A scripts/bench/bare_page_server.ts SOCKET DB_PATH
 */
import { DatabaseSync } from "node:sqlite";

const [socket, dbPath] = Deno.args;
const db = new DatabaseSync(dbPath, { readOnly: true });
const select = db.prepare(
  `SELECT seq, id, session_id, kind, payload_json, created_at FROM events
   WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
);
const headers = { "content-type": "application/json; charset=utf-8" };
const PAGE = new URLPattern({ pathname: "/api/v1/sessions/:id/events" });
const server = Deno.serve({ path: socket, onListen: () => {} }, (req) => {
  const url = new URL(req.url);
  const match = PAGE.exec(url);
  if (!match) return new Response('{"ok":true}', { headers });
  const afterSeq = Number(url.searchParams.get("afterSeq") ?? 0);
  const limit = Number(url.searchParams.get("limit") ?? 1000);
  const events = select.all(match.pathname.groups.id!, afterSeq, limit) as Array<{ seq: number }>;
  const last = events.length > 0 ? events[events.length - 1].seq : afterSeq;
  return new Response(
    JSON.stringify({ events, nextCursor: { afterSeq: last }, hasMore: events.length === limit }),
    { headers },
  );
});
const stop = () => void server.shutdown();
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
await server.finished;
db.close();
