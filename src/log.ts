/**
 * The daemon's own log (D2): one line per record, to stderr and to
 * `$SVC_HOME/logs/daemon.log` (0600), rotated by size at start and while
 * running, so the files on disk stay bounded.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Size past which the log file is rotated to `daemon.log.1`. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/**
 * Rotated files kept (`daemon.log.1`, newest, to `daemon.log.3`): with the
 * live file at most 4 × 10 MiB and one line (issue 28 item 4).
 */
export const LOG_KEEP_FILES = 3;

type Sink = (line: string) => void;

/** Formats one record: time, level, message, then fields as JSON (errors with their stack). */
export function formatLogLine(
  time: string,
  level: string,
  message: string,
  fields?: Record<string, unknown>,
): string {
  const extra = fields && Object.keys(fields).length > 0
    ? " " +
      JSON.stringify(
        fields,
        (_key, value) =>
          value instanceof Error
            ? { name: value.name, message: value.message, stack: value.stack }
            : value,
      )
    : "";
  return `${time} ${level} ${message}${extra}\n`;
}

/** A logger writing each line to every sink. */
export function createLogger(sinks: Sink[], now: () => number = Date.now): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    const line = formatLogLine(new Date(now()).toISOString(), level, message, fields);
    for (const sink of sinks) {
      try {
        sink(line);
      } catch {
        // Logging never takes the daemon down (a full disk, a closed stderr): the line is lost.
      }
    }
  };
  return { info: write("INFO"), warn: write("WARN"), error: write("ERROR") };
}

/**
 * A sink appending to `path` (created 0600) that rotates it once it passes
 * `rotateBytes`, at open and while writing: `path.1` becomes `path.2` and so
 * on, the oldest past `keepFiles` is removed, and `path` becomes `path.1`.
 * So a long-running daemon's log takes at most `keepFiles + 1` files.
 */
export function fileSink(
  path: string,
  options: { rotateBytes?: number; keepFiles?: number } = {},
): { sink: Sink; close(): void } {
  const { rotateBytes = LOG_ROTATE_BYTES, keepFiles = LOG_KEEP_FILES } = options;
  const encoder = new TextEncoder();
  let size = 0;
  let file: Deno.FsFile | null = null;
  const open = () => {
    try {
      size = Deno.statSync(path).size;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      size = 0;
    }
    if (size > rotateBytes) {
      try {
        rotate(path, keepFiles);
      } catch {
        // Cannot rotate (a file made read-only): keep appending, try again after rotateBytes more.
      }
      size = 0;
    }
    file = Deno.openSync(path, { append: true, create: true, mode: 0o600 });
  };
  open();
  return {
    sink: (line) => {
      if (!file) return;
      const bytes = encoder.encode(line);
      file.writeSync(bytes);
      size += bytes.length;
      if (size > rotateBytes) {
        file.close();
        file = null;
        open();
      }
    },
    close: () => {
      file?.close();
      file = null;
    },
  };
}

/** Shifts `path.N` to `path.N+1` (dropping the one past `keepFiles`), then `path` to `path.1`. */
function rotate(path: string, keepFiles: number): void {
  if (keepFiles < 1) {
    Deno.removeSync(path);
    return;
  }
  try {
    Deno.removeSync(`${path}.${keepFiles}`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (let index = keepFiles - 1; index >= 1; index--) {
    try {
      Deno.renameSync(`${path}.${index}`, `${path}.${index + 1}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  Deno.renameSync(path, `${path}.1`);
}

/** A sink writing to stderr. */
export const stderrSink: Sink = (line) => {
  Deno.stderr.writeSync(new TextEncoder().encode(line));
};

/** A logger that drops everything (tests and client-side code). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
