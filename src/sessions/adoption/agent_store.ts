/**
 * What svc reads of an agent's own session store (D33: discover and adopt a
 * conversation started outside svc). The files belong to the agent and may
 * hold anything: every read is bounded in bytes, lines that are not JSON are
 * skipped, and text is kept as text (redacted and cut; the CLI quotes it
 * through terminalSafe when it prints).
 */
import { truncateUtf8 } from "../../events/page.ts";
import { redactText } from "../../events/redact.ts";

/** One of an agent's recent sessions, as its own store or protocol lists it. */
export interface DiscoveredSession {
  /** The agent's id of the conversation (claude's `session_id`, codex's thread id, …). */
  agentSessionId: string;
  harness: string;
  /** The directory the conversation ran in; null when the store does not say. */
  cwd: string | null;
  /** The agent's title, or its first user message; "" when there is none. */
  title: string;
  /** RFC 3339; null when the store does not say. */
  lastActivityAt: string | null;
}

/** One message of a conversation as the agent's transcript records it. */
export interface ImportedMessage {
  role: "user" | "assistant";
  text: string;
  /** RFC 3339, when the transcript says. */
  at: string | null;
}

/** Which sessions a listing wants. */
export interface DiscoverFilter {
  /** Only sessions of this directory (a real path). */
  cwd?: string;
  /** At most this many, most recent first. */
  limit: number;
}

/** An agent's session store: its recent sessions, and one session's messages. */
export interface AgentSessionStore {
  list(filter: DiscoverFilter): Promise<DiscoveredSession[]>;
  /** The session `agentSessionId` (of `cwd`, when given); null when the store has none. */
  find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null>;
  /**
   * The messages of `session` in order, at most MAX_IMPORTED_MESSAGES (the
   * latest); null when its transcript cannot be read.
   */
  history(session: DiscoveredSession): Promise<ImportedMessage[] | null>;
}

/** A title is cut to this many UTF-8 bytes. */
export const MAX_TITLE_BYTES = 200;
/** A message imported into the log is cut to this many UTF-8 bytes. */
export const MAX_MESSAGE_BYTES = 32 * 1024;
/** At most this many messages of a conversation are imported (the latest). */
export const MAX_IMPORTED_MESSAGES = 500;
/** A transcript is read up to this many bytes; a longer one is read from its end. */
export const MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024;
/** A listing reads at most this many bytes of the head of each transcript. */
export const HEAD_BYTES = 256 * 1024;
/** A listing looks at this many of the newest transcripts at most. */
export const MAX_LISTED_FILES = 2000;

/** A title from an agent's text: one line, redacted, cut. */
export function titleText(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return truncateUtf8(redactText(line), MAX_TITLE_BYTES);
}

/** A message's text for the log: redacted, cut. */
export function messageText(text: string): string {
  return truncateUtf8(redactText(text), MAX_MESSAGE_BYTES);
}

/** The last MAX_IMPORTED_MESSAGES of `messages`, with empty texts left out. */
export function latestMessages(messages: ImportedMessage[]): ImportedMessage[] {
  return messages.filter((m) => m.text.trim() !== "").slice(-MAX_IMPORTED_MESSAGES);
}

/**
 * Up to `maxBytes` of the file at `path` (its start, or its end with
 * `fromEnd`), decoded as UTF-8 with bad bytes replaced; null when it cannot
 * be read. A cut line at the edge is dropped by the line parser.
 */
export async function readBounded(
  path: string,
  maxBytes: number,
  { fromEnd = false }: { fromEnd?: boolean } = {},
): Promise<{ text: string; cut: boolean } | null> {
  let file: Deno.FsFile;
  try {
    // Only a regular file, not a symlink: opening a FIFO an agent's folder holds would block.
    if (!(await Deno.lstat(path)).isFile) return null;
    file = await Deno.open(path, { read: true });
  } catch {
    return null;
  }
  try {
    const info = await file.stat();
    if (!info.isFile) return null;
    const cut = info.size > maxBytes;
    if (cut && fromEnd) await file.seek(info.size - maxBytes, Deno.SeekMode.Start);
    const buffer = new Uint8Array(Math.min(info.size, maxBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    return { text: new TextDecoder().decode(buffer.subarray(0, filled)), cut };
  } catch {
    return null;
  } finally {
    file.close();
  }
}

/**
 * The JSON objects of JSON-lines `text`; lines that are not a JSON object
 * (a cut first or last line, garbage) are skipped.
 */
export function jsonObjects(text: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const value = JSON.parse(line);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        objects.push(value);
      }
    } catch {
      // Not a whole JSON line: skipped.
    }
  }
  return objects;
}

/** `value` as a record, or null. */
export function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}

/** `value` when it is a string, else null. */
export function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** An RFC 3339 instant from an agent's time (ISO text or ms since the epoch), else null. */
export function instant(value: unknown): string | null {
  const ms = typeof value === "number"
    ? value
    : typeof value === "string"
    ? Date.parse(value)
    : NaN;
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}

/**
 * The files in `dir` whose names pass `keep`, newest first by mtime, at most
 * `max`; [] when the directory cannot be read.
 */
export async function newestFiles(
  dir: string,
  keep: (name: string) => boolean,
  max = MAX_LISTED_FILES,
): Promise<Array<{ path: string; name: string; mtime: number }>> {
  const files: Array<{ path: string; name: string; mtime: number }> = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !keep(entry.name)) continue;
      const path = `${dir}/${entry.name}`;
      try {
        const info = await Deno.stat(path);
        files.push({ path, name: entry.name, mtime: info.mtime?.getTime() ?? 0 });
      } catch {
        // Gone meanwhile.
      }
      if (files.length >= max * 2) break; // Bounded even in a directory of millions.
    }
  } catch {
    return [];
  }
  return files.sort((a, b) => b.mtime - a.mtime).slice(0, max);
}

/** The subdirectories of `dir` (names); [] when it cannot be read. */
export async function subdirectories(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) names.push(entry.name);
      if (names.length >= MAX_LISTED_FILES) break;
    }
  } catch {
    return [];
  }
  return names;
}

/** The newest first, then at most `limit`. */
export function mostRecent(sessions: DiscoveredSession[], limit: number): DiscoveredSession[] {
  return sessions
    .sort((a, b) => (b.lastActivityAt ?? "").localeCompare(a.lastActivityAt ?? ""))
    .slice(0, limit);
}
