/** A running server of one transport, stopped with `shutdown()`. */
export interface Listener {
  /** What to print: the socket path, `127.0.0.1:3000` or the pipe name. */
  readonly address: string;
  /** Stops accepting, waits for in-flight requests, removes a socket file it created. */
  shutdown(): Promise<void>;
}
