/**
 * Claude Code's own sessions (D33): one JSON-lines transcript per
 * conversation, `<config dir>/projects/<cwd with every character but
 * letters and digits turned to "-">/<session id>.jsonl`, the config dir
 * being `$CLAUDE_CONFIG_DIR` or `~/.claude` (measured with 2.1.197).
 */
import { join } from "node:path";
import {
  type AgentSessionStore,
  type DiscoveredSession,
  type DiscoverFilter,
  HEAD_BYTES,
  type ImportedMessage,
  instant,
  jsonObjects,
  latestMessages,
  MAX_TRANSCRIPT_BYTES,
  messageText,
  mostRecent,
  newestFiles,
  readBounded,
  record,
  subdirectories,
  text,
  titleText,
} from "./agent_store.ts";

const TRANSCRIPT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;

/** The project folder Claude Code keeps the transcripts of `cwd` in. */
export function claudeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

/**
 * Claude Code's transcripts under `configDir` (`$CLAUDE_CONFIG_DIR` or
 * `~/.claude`), listed as sessions of harness `harness`.
 */
export class ClaudeStore implements AgentSessionStore {
  readonly #projects: string;
  readonly #harness: string;

  constructor(configDir: string, harness = "claude") {
    this.#projects = join(configDir, "projects");
    this.#harness = harness;
  }

  async list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    const dirs = filter.cwd === undefined
      ? await subdirectories(this.#projects)
      : [claudeProjectDir(filter.cwd)];
    const found: DiscoveredSession[] = [];
    for (const dir of dirs) {
      const files = await newestFiles(join(this.#projects, dir), (n) => TRANSCRIPT.test(n));
      for (const file of files.slice(0, filter.limit)) {
        const session = await this.#summary(file.path, file.name.slice(0, -6), file.mtime);
        if (filter.cwd !== undefined && session.cwd !== filter.cwd) continue;
        found.push(session);
      }
    }
    return mostRecent(found, filter.limit);
  }

  async find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    const path = await this.#find(agentSessionId, cwd ?? null);
    if (path === null) return null;
    const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime() ?? 0;
    const session = await this.#summary(path, agentSessionId, mtime);
    return cwd === undefined || session.cwd === cwd ? session : null;
  }

  async history(session: DiscoveredSession): Promise<ImportedMessage[] | null> {
    const path = await this.#find(session.agentSessionId, session.cwd);
    if (path === null) return null;
    const read = await readBounded(path, MAX_TRANSCRIPT_BYTES, { fromEnd: true });
    if (read === null) return null;
    const messages: ImportedMessage[] = [];
    let lastAssistantId: string | null = null;
    for (const line of jsonObjects(read.text)) {
      if (line.isSidechain === true) continue;
      const message = record(line.message);
      const at = instant(line.timestamp);
      if (line.type === "user" && line.isMeta !== true) {
        const said = userText(message);
        if (said !== null) messages.push({ role: "user", text: messageText(said), at });
        lastAssistantId = null;
      } else if (line.type === "assistant" && message !== null) {
        const said = blockTexts(message.content).join("\n");
        if (said === "") continue;
        const id = text(message.id);
        const last = messages.at(-1);
        if (id !== null && id === lastAssistantId && last?.role === "assistant") {
          last.text = messageText(`${last.text}\n${said}`); // One reply written as several lines.
        } else messages.push({ role: "assistant", text: messageText(said), at });
        lastAssistantId = id;
      }
    }
    return latestMessages(messages);
  }

  /** The transcript of `id`: in the folder of `cwd`, else in any project folder. */
  async #find(id: string, cwd: string | null): Promise<string | null> {
    const name = `${id}.jsonl`;
    if (!TRANSCRIPT.test(name)) return null;
    const dirs = cwd === null ? [] : [claudeProjectDir(cwd)];
    dirs.push(...await subdirectories(this.#projects));
    for (const dir of dirs) {
      const path = join(this.#projects, dir, name);
      try {
        if ((await Deno.lstat(path)).isFile) return path;
      } catch {
        // Not in this folder.
      }
    }
    return null;
  }

  async #summary(path: string, id: string, mtime: number): Promise<DiscoveredSession> {
    const head = await readBounded(path, HEAD_BYTES);
    let cwd: string | null = null;
    let title: string | null = null;
    let summary: string | null = null;
    for (const line of jsonObjects(head?.text ?? "")) {
      cwd ??= text(line.cwd);
      if (line.type === "summary" || line.type === "custom-title") {
        summary = text(line.summary) ?? text(line.customTitle) ?? summary;
      }
      if (title === null && line.type === "user" && line.isMeta !== true) {
        title = userText(record(line.message));
      }
    }
    return {
      agentSessionId: id,
      harness: this.#harness,
      cwd,
      title: titleText(summary ?? title ?? ""),
      lastActivityAt: instant(mtime),
    };
  }
}

/** A user line's typed text (a string, or its text blocks); null for tool results. */
function userText(message: Record<string, unknown> | null): string | null {
  if (message === null) return null;
  if (typeof message.content === "string") return message.content;
  const texts = blockTexts(message.content);
  return texts.length === 0 ? null : texts.join("\n");
}

/** The `text` of each `{type: "text"}` block of `content`. */
function blockTexts(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => {
    const b = record(block);
    const said = b?.type === "text" ? text(b.text) : null;
    return said === null ? [] : [said];
  });
}
