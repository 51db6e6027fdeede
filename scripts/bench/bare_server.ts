/**
 * The baseline server: a bare `Deno.serve` on a Unix socket answering every
 * request with a fixed JSON body (the daemon's own `/health` answer, captured
 * by the bench), with nothing else loaded. The handler takes the request, as
 * every router must: a zero-argument handler would take Deno's raw-request
 * path, which builds no `Request` at all (it measured no different here).
 *
 *   deno run -A scripts/bench/bare_server.ts SOCKET BODY_FILE
 */
const [socket, bodyFile] = Deno.args;
const body = Deno.readTextFileSync(bodyFile);
const headers = { "content-type": "application/json; charset=utf-8" };
const server = Deno.serve(
  { path: socket, onListen: () => {} },
  (_req) => new Response(body, { status: 200, headers }),
);
const stop = () => void server.shutdown();
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
await server.finished;
