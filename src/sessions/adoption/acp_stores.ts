/**
 * The sessions of ACP agents (D33), listed by the agent itself (ACP
 * `session/list`, when advertised). For opencode (1.18 advertises it) a
 * conversation's messages are read from its SQLite store, `<data dir>/opencode/opencode.db`
 * (`$XDG_DATA_HOME` or `~/.local/share`), opened read-only: tables
 * `message` (`session_id`, `data.role`) and `part` (`message_id`,
 * `data.type` `text`), as measured with opencode 1.18.33.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { AcpSessionList } from "./acp_session_list.ts";
import {
  type AgentSessionStore,
  type DiscoveredSession,
  type DiscoverFilter,
  type ImportedMessage,
  instant,
  latestMessages,
  MAX_IMPORTED_MESSAGES,
  messageText,
  record,
  text,
} from "./agent_store.ts";

/** An ACP agent's sessions as it lists them; svc reads no transcript of a configured agent. */
export class AcpStore implements AgentSessionStore {
  readonly #list: AcpSessionList;

  constructor(list: AcpSessionList) {
    this.#list = list;
  }

  list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    return this.#list.list(filter);
  }

  find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    return this.#list.find(agentSessionId, cwd);
  }

  history(): Promise<ImportedMessage[] | null> {
    return Promise.resolve(null);
  }
}

/** Rows read of the store at most (parts of the latest messages). */
const MAX_PARTS = 20 * MAX_IMPORTED_MESSAGES;

/** opencode's sessions: the agent's list, its store's messages. */
export class OpencodeStore implements AgentSessionStore {
  readonly #list: AcpSessionList;
  readonly #database: string;

  constructor(list: AcpSessionList, dataHome: string) {
    this.#list = list;
    this.#database = join(dataHome, "opencode", "opencode.db");
  }

  list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    return this.#list.list(filter);
  }

  find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    return this.#list.find(agentSessionId, cwd);
  }

  history(session: DiscoveredSession): Promise<ImportedMessage[] | null> {
    return Promise.resolve(this.#read(session.agentSessionId));
  }

  #read(sessionId: string): ImportedMessage[] | null {
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(this.#database, { readOnly: true });
    } catch {
      return null;
    }
    try {
      const rows = db.prepare(
        `SELECT m.id AS message, m.data AS message_data, m.time_created AS at, p.data AS part_data
           FROM part p JOIN message m ON m.id = p.message_id
          WHERE m.session_id = ?
          ORDER BY m.time_created DESC, m.id DESC, p.time_created DESC, p.id DESC
          LIMIT ?`,
      ).all(sessionId, MAX_PARTS).reverse();
      const messages: Array<ImportedMessage & { id: string }> = [];
      for (const row of rows) {
        const role = parse(row.message_data)?.role;
        const part = parse(row.part_data);
        if ((role !== "user" && role !== "assistant") || part?.type !== "text") continue;
        if (part.synthetic === true) continue; // Text opencode added itself, not said.
        const said = text(part.text);
        if (said === null) continue;
        const id = String(row.message);
        const last = messages.at(-1);
        if (last?.id === id) last.text = `${last.text}\n${said}`;
        else messages.push({ id, role, text: said, at: instant(row.at) });
      }
      return latestMessages(messages.map(({ role, text, at }) => ({
        role,
        text: messageText(text),
        at,
      })));
    } catch {
      return null; // Another schema, a locked or broken store: no history to import.
    } finally {
      db.close();
    }
  }
}

function parse(value: unknown): Record<string, unknown> | null {
  if (typeof value !== "string") return null;
  try {
    return record(JSON.parse(value));
  } catch {
    return null;
  }
}
