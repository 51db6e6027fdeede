/**
 * svc's HTTP/1.1 framing with the handler shape `(Request, Peer) → Response`
 * and nothing behind it (issue 26): `serveHttp1` from src/transport answering
 * every request with the daemon's `/health` JSON, no routing, no policy. The
 * `/health` figure's third yardstick, between the bare socket loop and svc.
 *
 *   deno run -A scripts/bench/bare_framing_server.ts SOCKET BODY_FILE
 */
import { serveHttp1 } from "../../src/transport/http1_server.ts";
import { textResponse } from "../../src/transport/text_body.ts";
import { UNIX_PEER } from "../../src/policy/peer.ts";

const [socket, bodyFile] = Deno.args;
const body = Deno.readTextFileSync(bodyFile);
const headers = { "content-type": "application/json; charset=utf-8" };
const listener = Deno.listen({ transport: "unix", path: socket });
const server = serveHttp1(
  listener,
  (_req, _peer) => textResponse(body, { status: 200, headers }),
  { peer: UNIX_PEER },
);
const stop = () => void server.shutdown().then(() => Deno.exit(0));
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
