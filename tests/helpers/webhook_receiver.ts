/** A local HTTP receiver for webhook notifications (D31): it records each request. */

/** One request as received. */
export interface Received {
  path: string;
  headers: Headers;
  body: string;
}

/** How the receiver answers: 200, 500, or never (until it closes). */
export type ReceiverMode = "ok" | "error" | "hang";

export interface WebhookReceiver extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly received: Received[];
  /** Requests still waiting for an answer (mode "hang"). */
  readonly hanging: number;
  /** Resolves once `count` requests arrived (20 s at most). */
  waitFor(count: number): Promise<Received[]>;
}

/** Starts a receiver on a free loopback port. */
export function startReceiver(mode: ReceiverMode = "ok"): WebhookReceiver {
  const received: Received[] = [];
  const release = Promise.withResolvers<void>();
  let hanging = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    received.push({
      path: new URL(req.url).pathname + new URL(req.url).search,
      headers: req.headers,
      body: await req.text(),
    });
    if (mode === "hang") {
      hanging++;
      await release.promise;
      hanging--;
    }
    return new Response(mode === "error" ? "broken" : "ok", {
      status: mode === "error" ? 500 : 200,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    get hanging() {
      return hanging;
    },
    async waitFor(count) {
      const deadline = Date.now() + 20_000;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`${received.length} of ${count} requests arrived`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    async [Symbol.asyncDispose]() {
      release.resolve();
      await server.shutdown();
    },
  };
}
