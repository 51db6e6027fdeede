/**
 * The TCP listener's front door (D30): every request meets the request
 * rules (policy/web_request.ts) before anything else; an admitted one
 * carries its paired device, if any, to the API, or gets the app's files;
 * every answer gets the security headers; a device's streams end when it is
 * revoked. No CORS header is ever sent.
 */
import type { Handler } from "../api/app.ts";
import { errorResponse } from "../api/app.ts";
import { ServiceError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Peer, TcpPeer } from "../policy/peer.ts";
import { clientAddress, judgeTcpRequest } from "../policy/web_request.ts";
import type { Devices } from "./devices.ts";
import { type StaticAssets, staticResponse } from "./static_assets.ts";

/** The Content-Security-Policy of every HTML answer (D30). */
export const HTML_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; " +
  "form-action 'self'";

/** Wraps the daemon's handler for the TCP listener; other peers pass through untouched. */
export function webGate(
  inner: Handler,
  options: { devices: Devices; assets: StaticAssets; log: Logger },
): Handler {
  const admit = (req: Request, peer: TcpPeer): Peer | Response => {
    const verdict = judgeTcpRequest(
      req,
      peer,
      (token) => options.devices.credential(token, clientAddress(req, peer)),
    );
    if (!verdict.admitted) {
      const refusal = new ServiceError(verdict.code, verdict.status, verdict.message);
      return withHeaders(errorResponse(refusal, options.log, req), true);
    }
    return verdict.device === null ? peer : { ...peer, device: verdict.device };
  };
  const handle = async (req: Request, peer: Peer): Promise<Response> => {
    if (peer.transport !== "tcp") return await inner(req, peer);
    const admitted = admit(req, peer);
    if (admitted instanceof Response) return admitted;
    const pathname = URL.canParse(req.url) ? new URL(req.url).pathname : "/";
    if (!pathname.startsWith("/api/")) {
      try {
        return withHeaders(await staticResponse(req, pathname, options.assets), false);
      } catch (error) {
        return withHeaders(errorResponse(error, options.log, req), true);
      }
    }
    const response = withHeaders(await inner(req, admitted), true);
    const device = admitted.transport === "tcp" ? admitted.device : undefined;
    return device === undefined
      ? response
      : endsWithDevice(response, options.devices.signal(device.id));
  };
  const beforeBody = (req: Request, peer: Peer): Response | null => {
    if (peer.transport !== "tcp") return inner.beforeBody?.(req, peer) ?? null;
    const admitted = admit(req, peer);
    if (admitted instanceof Response) return admitted;
    const refusal = inner.beforeBody?.(req, admitted) ?? null;
    return refusal === null ? null : withHeaders(refusal, true);
  };
  return Object.assign(handle, { beforeBody });
}

/**
 * D30's headers: `nosniff` on every answer; `no-store` on HTML and API
 * answers; on HTML the CSP, `no-referrer` and the opener policy.
 */
function withHeaders(response: Response, api: boolean): Response {
  const headers = response.headers;
  headers.set("x-content-type-options", "nosniff");
  const html = /^text\/html\b/i.test(headers.get("content-type") ?? "");
  if (api || html) headers.set("cache-control", "no-store");
  if (html) {
    headers.set("content-security-policy", HTML_CSP);
    headers.set("referrer-policy", "no-referrer");
    headers.set("cross-origin-opener-policy", "same-origin");
  }
  return response;
}

/**
 * A device's streamed answer (an event stream) ends when `revoked` aborts:
 * revoking a device closes its open streams at once.
 */
function endsWithDevice(response: Response, revoked: AbortSignal): Response {
  if (
    response.body === null || !/^text\/event-stream\b/i.test(
      response.headers.get("content-type") ?? "",
    )
  ) {
    return response;
  }
  const reader = response.body.getReader();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = () => {
        reader.cancel().catch(() => {});
        try {
          controller.close();
        } catch { /* already closed */ }
      };
      if (revoked.aborted) stop();
      else revoked.addEventListener("abort", stop, { once: true });
    },
    async pull(controller) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) {
        revoked.removeEventListener("abort", stop);
        try {
          controller.close();
        } catch { /* closed by a revocation */ }
      } else controller.enqueue(value);
    },
    cancel(reason) {
      revoked.removeEventListener("abort", stop);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
