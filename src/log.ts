/**
 * The daemon's own log (D2): one line per record, to stderr and to
 * `$SVC_HOME/logs/daemon.log` (0600), rotated by size when opened.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Size past which the log file is rotated to `daemon.log.1`. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

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
 * A sink appending to `path` (created 0600) that rotates it to `path.1` once
 * it passes `rotateBytes`, at open and while writing, so a long-running
 * daemon's log stays bounded (two files at most).
 */
export function fileSink(
  path: string,
  rotateBytes = LOG_ROTATE_BYTES,
): { sink: Sink; close(): void } {
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
      Deno.renameSync(path, `${path}.1`);
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
        open();
      }
    },
    close: () => {
      file?.close();
      file = null;
    },
  };
}

/** A sink writing to stderr. */
export const stderrSink: Sink = (line) => {
  Deno.stderr.writeSync(new TextEncoder().encode(line));
};

/** A logger that drops everything (tests and client-side code). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
