/**
 * Codex's own sessions (D33): one rollout file per thread,
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`
 * (`~/.codex` without the variable), whose first line is the thread's
 * `session_meta` (id, cwd) and whose `response_item` lines are the
 * conversation (measured with codex 0.169.0).
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
  MAX_LISTED_FILES,
  MAX_TRANSCRIPT_BYTES,
  messageText,
  newestFiles,
  readBounded,
  record,
  subdirectories,
  text,
  titleText,
} from "./agent_store.ts";

const ROLLOUT = /^rollout-.*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/** Codex's rollout files under `codexHome`, listed as sessions of harness `harness`. */
export class CodexStore implements AgentSessionStore {
  readonly #sessions: string;
  readonly #harness: string;

  constructor(codexHome: string, harness = "codex") {
    this.#sessions = join(codexHome, "sessions");
    this.#harness = harness;
  }

  async list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    const found: DiscoveredSession[] = [];
    let scanned = 0;
    for await (const file of this.#rollouts()) {
      if (found.length >= filter.limit || scanned++ >= MAX_LISTED_FILES) break;
      const session = await this.#summary(file.path, file.mtime);
      if (session === null) continue;
      if (filter.cwd !== undefined && session.cwd !== filter.cwd) continue;
      found.push(session);
    }
    return found;
  }

  async find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    const path = await this.#find(agentSessionId);
    if (path === null) return null;
    const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime() ?? 0;
    const session = await this.#summary(path, mtime);
    return session !== null && (cwd === undefined || session.cwd === cwd) ? session : null;
  }

  async history(session: DiscoveredSession): Promise<ImportedMessage[] | null> {
    const path = await this.#find(session.agentSessionId);
    if (path === null) return null;
    const read = await readBounded(path, MAX_TRANSCRIPT_BYTES, { fromEnd: true });
    if (read === null) return null;
    const messages: ImportedMessage[] = [];
    for (const line of jsonObjects(read.text)) {
      const said = conversationMessage(line);
      if (said !== null) messages.push({ ...said, text: messageText(said.text) });
    }
    return latestMessages(messages);
  }

  /** The rollout of thread `id`, newest days first. */
  async #find(id: string): Promise<string | null> {
    if (!/^[0-9a-f-]{36}$/.test(id)) return null;
    let scanned = 0;
    for await (const file of this.#rollouts()) {
      if (scanned++ >= MAX_LISTED_FILES) break;
      if (file.path.endsWith(`-${id}.jsonl`)) return file.path;
    }
    return null;
  }

  /** Every rollout file, the newest day first, each day's newest first. */
  async *#rollouts(): AsyncGenerator<{ path: string; mtime: number }> {
    const desc = (names: string[]) => names.filter((n) => /^\d+$/.test(n)).sort().reverse();
    for (const year of desc(await subdirectories(this.#sessions))) {
      const yearDir = join(this.#sessions, year);
      for (const month of desc(await subdirectories(yearDir))) {
        const monthDir = join(yearDir, month);
        for (const day of desc(await subdirectories(monthDir))) {
          yield* await newestFiles(join(monthDir, day), (name) => ROLLOUT.test(name));
        }
      }
    }
  }

  async #summary(path: string, mtime: number): Promise<DiscoveredSession | null> {
    const head = await readBounded(path, HEAD_BYTES);
    let id: string | null = null;
    let cwd: string | null = null;
    let title: string | null = null;
    for (const line of jsonObjects(head?.text ?? "")) {
      const payload = record(line.payload);
      if (line.type === "session_meta" && payload !== null && id === null) {
        id = text(payload.id);
        cwd = text(payload.cwd);
      }
      const said = conversationMessage(line);
      if (said?.role === "user") {
        title = said.text;
        break;
      }
    }
    const fromName = ROLLOUT.exec(path.slice(path.lastIndexOf("/") + 1))?.[1] ?? null;
    if (id === null || id !== fromName) return null;
    return {
      agentSessionId: id,
      harness: this.#harness,
      cwd,
      title: titleText(title ?? ""),
      lastActivityAt: instant(mtime),
    };
  }
}

/**
 * A user's or the model's message of a rollout line; null for anything else
 * (developer instructions, and the context codex adds as a user message
 * wholly wrapped in a tag, such as `<environment_context>`).
 */
function conversationMessage(
  line: Record<string, unknown>,
): Omit<ImportedMessage, "text"> & { text: string } | null {
  const payload = record(line.payload);
  if (line.type !== "response_item" || payload?.type !== "message") return null;
  const role = payload.role === "user" ? "user" : payload.role === "assistant" ? "assistant" : null;
  if (role === null || !Array.isArray(payload.content)) return null;
  const texts = payload.content.flatMap((item) => {
    const block = record(item);
    const said = block?.type === "input_text" || block?.type === "output_text"
      ? text(block.text)
      : null;
    return said === null ? [] : [said];
  });
  const joined = texts.join("\n");
  const trimmed = joined.trim();
  if (trimmed === "" || (role === "user" && /^<[\w -]+>[\s\S]*<\/[\w -]+>$/.test(trimmed))) {
    return null;
  }
  return { role, text: joined, at: instant(line.timestamp) };
}
