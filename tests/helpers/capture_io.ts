import type { Io } from "../../src/cli/command.ts";

/** An `Io` that captures stdout and stderr and reads its environment from `env`. */
export function captureIo(env: Record<string, string>): {
  io: Io;
  stdout(): string;
  stderr(): string;
} {
  let stdout = "";
  let stderr = "";
  return {
    io: {
      out: (text) => stdout += text + "\n",
      err: (text) => stderr += text + "\n",
      write: (text) => stdout += text,
      writeErr: (text) => stderr += text,
      env: (name) => env[name],
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}
