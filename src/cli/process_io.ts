import type { Io } from "./command.ts";

const encoder = new TextEncoder();

/** The process's real stdout, stderr and environment. */
export const processIo: Io = {
  out: (text) => writeAll(Deno.stdout, text + "\n"),
  err: (text) => writeAll(Deno.stderr, text + "\n"),
  write: (text) => writeAll(Deno.stdout, text),
  writeErr: (text) => writeAll(Deno.stderr, text),
  env: (name) => Deno.env.get(name),
};

/** `writeSync` may write part of the bytes (pipes): loop until all are out. */
function writeAll(stream: typeof Deno.stdout | typeof Deno.stderr, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
}
