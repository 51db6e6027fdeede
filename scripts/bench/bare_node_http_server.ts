/**
 * A second baseline of the `/health` figure (issue 26): `node:http` on a Unix
 * socket answering every request with the daemon's own `/health` JSON, nothing
 * else loaded. Node's HTTP server parses in JavaScript, as svc's framing does.
 *
 *   deno run -A scripts/bench/bare_node_http_server.ts SOCKET BODY_FILE
 */
import { createServer } from "node:http";

const [socket, bodyFile] = Deno.args;
const body = Deno.readTextFileSync(bodyFile);
const headers = {
  "content-type": "application/json; charset=utf-8",
  "content-length": String(new TextEncoder().encode(body).length),
};
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(socket);
const stop = () => {
  server.close(() => Deno.exit(0));
  server.closeAllConnections();
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
