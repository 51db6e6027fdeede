import { homePaths } from "../config/home.ts";
import { resolveCliHome } from "./working_dir.ts";
import { parseCommandArgs } from "./args.ts";
import { bold, dim, red, useColor } from "./color.ts";
import { type Command, EXIT, type Io } from "./command.ts";
import { integerOption } from "./events.ts";
import { readRange } from "../file_range.ts";
import { terminalSafe } from "./terminal_text.ts";

/** Lines printed without `--lines`. */
const DEFAULT_LINES = 50;
/** How often `--follow` looks at the file. */
const FOLLOW_POLL_MS = 200;
/** Bytes read per step when searching the file backwards for line starts. */
const TAIL_CHUNK_BYTES = 64 * 1024;
/** Exit code after Ctrl-C: 128 + SIGINT, as shells report it. */
const EXIT_INTERRUPTED = 130;

/** `svc logs`: the daemon's own log, read from the file, so it works while the daemon is down (D2). */
export const logsCommand: Command = {
  name: "logs",
  summary: "Print or follow the daemon's own log",
  usage: `Usage: svc logs [--lines N] [--follow] [--home DIR]

Prints the last N lines (default 50) of <home>/logs/daemon.log. The file is
read directly, so this works while the daemon is down. Exits 1 when the file
does not exist.

Options:
  --lines N   print the last N lines (0: none, useful with --follow)
  --follow    keep printing lines as they are appended, across rotations
              (daemon.log moved to daemon.log.1); Ctrl-C stops (exit 130)`,
  localOnly: true,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      lines: { type: "string" },
      follow: { type: "boolean" },
    });
    const count = values.lines === undefined
      ? DEFAULT_LINES
      : integerOption(values.lines, "--lines", 0);
    const path = homePaths(resolveCliHome(values.home, io)).logFile;
    const color = useColor(io, Deno.stdout);
    try {
      let tail;
      try {
        tail = await readLastLines(path, count);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        io.err(`svc logs: no daemon log at "${path}" (has the daemon run with this home?)`);
        return EXIT.refused;
      }
      io.write(logText(tail.text, color));
      if (!values.follow) return EXIT.ok;
      const controller = new AbortController();
      const interrupt = () => controller.abort();
      Deno.addSignalListener("SIGINT", interrupt);
      try {
        await followLog(path, io, { signal: controller.signal, offset: tail.size, color });
      } finally {
        Deno.removeSignalListener("SIGINT", interrupt);
      }
      return EXIT_INTERRUPTED;
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
      throw error;
    }
  },
};

/**
 * The last `count` lines of the file at `path` (a final line without a
 * newline counts as a line), and the file's size they were read up to.
 * Reads backwards in chunks, so a 10 MiB log costs only its tail.
 */
export async function readLastLines(
  path: string,
  count: number,
): Promise<{ text: string; size: number }> {
  using file = await Deno.open(path, { read: true });
  const { size } = await file.stat();
  if (count === 0 || size === 0) return { text: "", size };
  const chunks: Uint8Array[] = [];
  let start = size;
  let newlines = 0;
  // A trailing newline ends the last line; it does not start another.
  let skipFinal = true;
  search: while (start > 0) {
    const length = Math.min(TAIL_CHUNK_BYTES, start);
    start -= length;
    const chunk = await readRange(file, start, length);
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== 0x0a) {
        skipFinal = false;
        continue;
      }
      if (skipFinal) {
        skipFinal = false;
        continue;
      }
      if (++newlines === count) {
        chunks.unshift(chunk.subarray(i + 1));
        break search;
      }
    }
    chunks.unshift(chunk);
  }
  return { text: decodeAll(chunks), size };
}

/** Options of `followLog`. */
export interface FollowOptions {
  /** Stops following; `followLog` then resolves. */
  signal: AbortSignal;
  /** Where to start in the current file (default: its end). */
  offset?: number;
  pollMs?: number;
  /** Colour levels and times (see `colorLogLines`). */
  color?: boolean;
}

/**
 * Prints the lines appended to the file at `path` until `signal` aborts,
 * polling its size. A file that shrinks (truncated) is read again from the
 * start; a file that was replaced (rotated to `daemon.log.1`) is read to its
 * end through the open handle, then the new file from its start. Only whole
 * lines are printed.
 */
export async function followLog(path: string, io: Io, options: FollowOptions): Promise<void> {
  const { signal, pollMs = FOLLOW_POLL_MS, color = false } = options;
  const decoder = new TextDecoder();
  let pending = "";
  const emit = (bytes: Uint8Array, flush: boolean) => {
    pending += decoder.decode(bytes, { stream: !flush });
    const end = flush ? pending.length : pending.lastIndexOf("\n") + 1;
    if (end === 0) return;
    const text = pending.slice(0, end);
    pending = pending.slice(end);
    io.write(logText(text, color));
  };

  let current: OpenLog | null = await openLog(path, options.offset);
  try {
    while (!signal.aborted) {
      current ??= await openLog(path, 0);
      if (current !== null) {
        const replaced = await replacedOrGone(path, current.ino);
        // Read to the end first: lines written before a rename are in the old file.
        const { size } = await current.file.stat();
        if (size < current.offset) current.offset = 0; // Truncated in place: start over.
        if (size > current.offset) {
          emit(await readRange(current.file, current.offset, size - current.offset), false);
          current.offset = size;
        }
        if (replaced) {
          emit(new Uint8Array(), true);
          current.file.close();
          current = null;
          continue;
        }
      }
      await pause(pollMs, signal);
    }
  } finally {
    current?.file.close();
  }
}

/** The followed file: its handle, its inode (null on Windows) and how far it was printed. */
interface OpenLog {
  file: Deno.FsFile;
  ino: number | null;
  offset: number;
}

/** Opens the log at `from` (default: its end); null when there is no file yet. */
async function openLog(path: string, from: number | undefined): Promise<OpenLog | null> {
  let file;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const { ino, size } = await file.stat();
  return { file, ino, offset: from === undefined ? size : Math.min(from, size) };
}

/**
 * Whether the file at `path` is no longer the one with inode `ino`. Without
 * inode numbers (Windows) a replacement shows only as a smaller size.
 */
async function replacedOrGone(path: string, ino: number | null): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return ino !== null && info.ino !== null && info.ino !== ino;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/**
 * Log lines as printed: terminal-safe (a logged message may quote what an
 * agent or a client sent), then coloured when `color`.
 */
function logText(text: string, color: boolean): string {
  const safe = terminalSafe(text, { keepTabs: true });
  return color ? colorLogLines(safe) : safe;
}

/** Colours the level of each `time LEVEL message` line: time dim, WARN bold, ERROR red. */
export function colorLogLines(text: string): string {
  return text.replace(
    /^(\S+) (INFO|WARN|ERROR) /gm,
    (_line, time: string, level: string) =>
      `${dim(time)} ${level === "ERROR" ? red(level) : level === "WARN" ? bold(level) : level} `,
  );
}

function decodeAll(chunks: Uint8Array[]): string {
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
