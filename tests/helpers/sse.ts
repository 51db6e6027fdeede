/** A minimal Server-Sent Events reader over the daemon's Unix socket, for tests. */

/** One SSE message: its id, event name and data (comments are skipped). */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** An open stream: read messages one by one, or close it (the client going away). */
export interface SseReader {
  readonly status: number;
  readonly headers: Headers;
  /** The next message, or null at the end of the stream. */
  next(): Promise<SseMessage | null>;
  /** Comments seen so far (`keep-alive`, `connected`). */
  readonly comments: string[];
  close(): Promise<void>;
}

/** Opens `path` (under /api/v1) on the daemon at `socket`. */
export async function openSse(
  socket: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<SseReader> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  const abort = new AbortController();
  const response = await fetch(`http://localhost/api/v1${path}`, {
    client,
    headers,
    signal: abort.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const comments: string[] = [];
  const close = async () => {
    abort.abort();
    await reader.cancel().catch(() => {});
    client.close();
  };
  return {
    status: response.status,
    headers: response.headers,
    comments,
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: SseMessage = { id: null, event: "message", data: "" };
          let isMessage = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, "");
              if (field === "id") message.id = value;
              if (field === "event") message.event = value;
              if (field === "data") message.data += value;
              isMessage = true;
            }
          }
          if (isMessage) return message;
          continue;
        }
        const { done, value } = await reader.read().catch(() => ({ done: true, value: "" }));
        if (done) return null;
        buffer += value;
      }
    },
    close,
  };
}
