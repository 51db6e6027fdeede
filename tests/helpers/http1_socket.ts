import { type ByteDuplex, serveHttp1Connection } from "../../src/transport/http1_connection.ts";

/** Serves `handler` with serveHttp1Connection on a real Unix socket, for real HTTP clients. */
export function serveOnSocket(path: string, handler: (req: Request) => Promise<Response>) {
  const listener = Deno.listen({ transport: "unix", path });
  const connections: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      const duplex: ByteDuplex = {
        read: (into) => conn.read(into).catch(() => null),
        write: async (chunk) => {
          for (let offset = 0; offset < chunk.length;) {
            offset += await conn.write(chunk.subarray(offset));
          }
        },
        cancelRead: () => conn.close(),
      };
      connections.push(
        serveHttp1Connection(duplex, handler).finally(() => {
          try {
            conn.close();
          } catch { /* already closed */ }
        }),
      );
    }
  })();
  return {
    async close() {
      listener.close();
      await accepting.catch(() => {});
      await Promise.all(connections);
    },
  };
}
