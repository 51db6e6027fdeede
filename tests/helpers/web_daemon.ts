/**
 * A real daemon with its loopback TCP listener for the web face's tests
 * (D30): raw HTTP to it with the page's Host, and pairing a device through
 * the page's exchange (the code made on the owner's socket).
 */
import assert from "node:assert/strict";
import { freePort, startTestDaemon, type TestDaemon } from "./daemon.ts";
import { httpRequest, rawHttp } from "./http.ts";

export type Json = Record<string, unknown>;

export interface Web {
  t: TestDaemon;
  port: number;
  host: string;
  origin: string;
  send(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: string; host?: string },
  ): ReturnType<typeof rawHttp>;
  /** Pairs a device with `scope` through the page's exchange; its cookie token. */
  pair(scope: string): Promise<string>;
}

/** Starts the daemon with TCP on a free port and `configJson`. */
export async function webDaemon(configJson: Json = {}): Promise<Web & AsyncDisposable> {
  const port = freePort();
  const t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port }, configJson });
  const host = `127.0.0.1:${port}`;
  const origin = `http://${host}`;
  const send: Web["send"] = (method, path, options = {}) =>
    rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest(method, path, { host: options.host ?? host, ...options }),
    );
  const pair = async (scope: string) => {
    const made = await t.client.post<Json>("/devices/pairing-codes", { name: scope, scope });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const answer = await send("POST", "/api/v1/devices/pair", {
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ code: made.body.code }),
    });
    assert.equal(answer.status, 200, answer.text);
    return /svc_device=([^;]+)/.exec(answer.headers.get("set-cookie") ?? "")![1];
  };
  return {
    t,
    port,
    host,
    origin,
    send,
    pair,
    [Symbol.asyncDispose]: () => t[Symbol.asyncDispose](),
  };
}

/** The headers of a device's credentialed JSON mutation from the page at `origin`. */
export const json = (origin: string, token: string) => ({
  origin,
  "content-type": "application/json",
  cookie: `svc_device=${token}`,
});
