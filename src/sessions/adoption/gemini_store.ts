/**
 * Gemini CLI's own sessions (D33). Gemini CLI 0.61 does not answer ACP
 * `session/list`, so svc reads its files: `<home>/.gemini/tmp/<project
 * short id>/chats/session-<start minute>-<id prefix>.jsonl` (home:
 * `$GEMINI_CLI_HOME` or `~`), the project's directory in `.project_root`
 * beside `chats` and the short id of a directory in `.gemini/projects.json`.
 * A chat file is a log: its first line the header (`sessionId`,
 * `startTime`), then messages (`id`, `type` `user` | `gemini`, `content`),
 * and `$set` lines that replace fields, `messages` too (measured with 0.61.0).
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

const CHAT = /^session-[0-9T-]+-[0-9a-f]{8}\.jsonl$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `.project_root` holds one path: more is not a path. */
const MAX_ROOT_BYTES = 8192;

/** Gemini CLI's chat files under `geminiHome` (`$GEMINI_CLI_HOME` or `~`). */
export class GeminiStore implements AgentSessionStore {
  readonly #tmp: string;

  constructor(geminiHome: string) {
    this.#tmp = join(geminiHome, ".gemini", "tmp");
  }

  async list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    const found: DiscoveredSession[] = [];
    for (const project of await subdirectories(this.#tmp)) {
      const cwd = await this.#projectRoot(project);
      if (filter.cwd !== undefined && cwd !== filter.cwd) continue;
      const chats = await newestFiles(join(this.#tmp, project, "chats"), (n) => CHAT.test(n));
      for (const chat of chats.slice(0, filter.limit)) {
        const session = await summary(chat.path, cwd, chat.mtime);
        if (session !== null) found.push(session);
      }
    }
    return mostRecent(found, filter.limit);
  }

  async find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    const found = await this.#find(agentSessionId);
    if (found === null) return null;
    const projectCwd = await this.#projectRoot(found.project);
    if (cwd !== undefined && projectCwd !== cwd) return null;
    const mtime = (await Deno.stat(found.path).catch(() => null))?.mtime?.getTime() ?? 0;
    return await summary(found.path, projectCwd, mtime);
  }

  async history(session: DiscoveredSession): Promise<ImportedMessage[] | null> {
    const found = await this.#find(session.agentSessionId);
    if (found === null) return null;
    const read = await readBounded(found.path, MAX_TRANSCRIPT_BYTES);
    if (read === null || read.cut) return null; // A log read in part is not the conversation.
    const messages: Record<string, unknown>[] = [];
    for (const line of jsonObjects(read.text).slice(1)) {
      const set = record(line.$set);
      if (set !== null) {
        if (Array.isArray(set.messages)) messages.splice(0, messages.length, ...set.messages);
        continue;
      }
      const id = text(line.id);
      if (id === null) continue;
      const at = messages.findIndex((m) => record(m)?.id === id);
      if (at >= 0) messages[at] = line; // A message written again replaces itself.
      else messages.push(line);
    }
    return latestMessages(messages.flatMap((m) => {
      const said = chatMessage(m);
      return said === null ? [] : [{ ...said, text: messageText(said.text) }];
    }));
  }

  /** The chat file of session `id`: named after its first 8 digits, its header saying so. */
  async #find(id: string): Promise<{ path: string; project: string } | null> {
    if (!UUID.test(id)) return null;
    const suffix = `-${id.slice(0, 8)}.jsonl`;
    for (const project of await subdirectories(this.#tmp)) {
      const chats = await newestFiles(
        join(this.#tmp, project, "chats"),
        (n) => CHAT.test(n) && n.endsWith(suffix),
      );
      for (const chat of chats) {
        const head = await readBounded(chat.path, HEAD_BYTES);
        if (jsonObjects(head?.text ?? "")[0]?.sessionId === id) return { path: chat.path, project };
      }
    }
    return null;
  }

  async #projectRoot(project: string): Promise<string | null> {
    const read = await readBounded(join(this.#tmp, project, ".project_root"), MAX_ROOT_BYTES);
    const root = read?.text.trim() ?? "";
    return read !== null && !read.cut && root.startsWith("/") && !root.includes("\n") ? root : null;
  }
}

async function summary(
  path: string,
  cwd: string | null,
  mtime: number,
): Promise<DiscoveredSession | null> {
  const head = await readBounded(path, HEAD_BYTES);
  const lines = jsonObjects(head?.text ?? "");
  const id = text(lines[0]?.sessionId);
  if (id === null || !UUID.test(id) || (lines[0].kind ?? "main") !== "main") return null;
  let title = "";
  for (const line of lines.slice(1)) {
    const said = chatMessage(line);
    if (said?.role === "user") {
      title = said.text;
      break;
    }
  }
  return {
    agentSessionId: id,
    harness: "gemini",
    cwd,
    title: titleText(title),
    lastActivityAt: instant(mtime),
  };
}

/**
 * A user's or the model's message of a chat file; null for anything else
 * (info and error lines, tool-only turns, the context gemini adds as a user
 * message wholly wrapped in `<session_context>`).
 */
function chatMessage(line: unknown): ImportedMessage | null {
  const message = record(line);
  const role = message?.type === "user" ? "user" : message?.type === "gemini" ? "assistant" : null;
  if (message === null || role === null) return null;
  const content = message.content;
  const said = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((part) => {
      const t = text(record(part)?.text);
      return t === null ? [] : [t];
    }).join("\n")
    : "";
  const trimmed = said.trim();
  if (trimmed === "" || (role === "user" && /^<[\w-]+>[\s\S]*<\/[\w-]+>$/.test(trimmed))) {
    return null;
  }
  return { role, text: said, at: instant(message.timestamp) };
}
