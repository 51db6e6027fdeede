/**
 * `GET /sessions/discover` (D33): the built-in agents' own recent sessions,
 * from each agent's store or protocol, limited to the daemon's project
 * roots. Which store a harness has is decided here; what each store holds
 * is its own module's business.
 */
import { join } from "node:path";
import { invalidRequest, ServiceError } from "../../errors.ts";
import type { CapabilityRegistry } from "../capabilities.ts";
import type { HarnessSpec } from "../harnesses.ts";
import { insideAllowedRoots } from "../paths.ts";
import type { Spawner } from "../spawner.ts";
import { AcpSessionList } from "./acp_session_list.ts";
import type { AgentSessionStore, DiscoveredSession, ImportedMessage } from "./agent_store.ts";
import { mostRecent } from "./agent_store.ts";
import { ClaudeStore } from "./claude_store.ts";
import { CodexStore } from "./codex_store.ts";
import { GeminiStore } from "./gemini_store.ts";
import { AcpStore, OpencodeStore } from "./acp_stores.ts";

/** Where each built-in agent keeps its sessions (each CLI's own variables, as it reads them). */
export interface AgentHomes {
  /** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  claudeConfigDir: string;
  /** `$CODEX_HOME`, else `~/.codex`. */
  codexHome: string;
  /** `$GEMINI_CLI_HOME`, else `~` (Gemini CLI adds `.gemini`). */
  geminiHome: string;
  /** `$XDG_DATA_HOME`, else `~/.local/share` (opencode's store). */
  dataHome: string;
}

/** The agents' homes as the daemon's environment sets them (they see the same). */
export function agentHomesFromEnv(): AgentHomes {
  const home = Deno.env.get("HOME") || Deno.env.get("USERPROFILE") || "/";
  return {
    claudeConfigDir: Deno.env.get("CLAUDE_CONFIG_DIR") || join(home, ".claude"),
    codexHome: Deno.env.get("CODEX_HOME") || join(home, ".codex"),
    geminiHome: Deno.env.get("GEMINI_CLI_HOME") || home,
    dataHome: Deno.env.get("XDG_DATA_HOME") || join(home, ".local", "share"),
  };
}

/** Default and largest `limit` of a listing. */
export const DEFAULT_DISCOVER_LIMIT = 50;
export const MAX_DISCOVER_LIMIT = 200;

/** What discovery reads. */
export interface DiscoveryOptions {
  homes: AgentHomes;
  harnesses: () => ReadonlyMap<string, HarnessSpec>;
  capabilities: CapabilityRegistry;
  /** Starts an ACP agent to ask for its list. */
  spawner: Spawner;
  /** The daemon's project roots now (D3); null: any directory. */
  projectRoots: () => readonly string[] | null;
  /** An existing directory to start an agent in when no cwd is asked for (the daemon's home). */
  defaultCwd: string;
}

/** A listing: the sessions found, and the harnesses that could not list theirs and why. */
export interface Discovered {
  sessions: DiscoveredSession[];
  unavailable: Array<{ harness: string; code: string; message: string }>;
}

/** Finds the built-in agents' own sessions. */
export class Discovery {
  readonly #options: DiscoveryOptions;

  constructor(options: DiscoveryOptions) {
    this.#options = options;
  }

  /**
   * The sessions of `harness` (default: every installed built-in) in `cwd`
   * (a real path inside the project roots), newest first, at most `limit`.
   * A harness whose listing fails is named in `unavailable`; with one
   * harness asked for, its failure is the answer.
   */
  async discover(
    request: { harness?: string; cwd?: string; limit: number },
  ): Promise<Discovered> {
    const cwd = request.cwd === undefined ? undefined : await this.checkCwd(request.cwd);
    const ids = request.harness !== undefined ? [request.harness] : this.#installedBuiltins();
    const result: Discovered = { sessions: [], unavailable: [] };
    for (const id of ids) {
      try {
        const store = this.storeFor(id).store;
        const found = await store.list({ ...(cwd !== undefined && { cwd }), limit: request.limit });
        result.sessions.push(...await this.#insideRoots(found));
      } catch (error) {
        if (!(error instanceof ServiceError) || request.harness !== undefined) throw error;
        result.unavailable.push({ harness: id, code: error.code, message: error.message });
      }
    }
    result.sessions = mostRecent(result.sessions, request.limit);
    return result;
  }

  /**
   * The harness `id` and its agent's store: 400 `invalid_request` when it is
   * not configured or not installed, 409 `discover_unsupported` when it is
   * not a built-in (svc knows no store of a configured agent).
   */
  storeFor(id: string): { harness: HarnessSpec; store: AgentSessionStore } {
    const harness = this.#options.harnesses().get(id);
    const status = this.#options.capabilities.harness(id)?.status;
    if (!harness || status === undefined) {
      throw invalidRequest(`Harness "${id}" is not supported`, "harness");
    }
    if (status === "disabled") {
      throw invalidRequest(
        `Harness "${id}" is not installed: its program was not found`,
        "harness",
      );
    }
    const store = this.#store(harness);
    if (store === null) {
      throw new ServiceError(
        "discover_unsupported",
        409,
        `Harness "${id}" cannot list its sessions: it is a raw harness, not an agent conversation`,
        { harness: id },
      );
    }
    return { harness, store };
  }

  /**
   * `cwd` as a real directory inside the project roots; 400
   * `invalid_request` naming `cwd` otherwise.
   */
  async checkCwd(cwd: string): Promise<string> {
    if (!cwd.startsWith("/")) {
      throw invalidRequest(`Working directory "${cwd}" is not an absolute path`, "cwd");
    }
    let real: string;
    try {
      real = await Deno.realPath(cwd);
    } catch {
      throw invalidRequest(`Working directory "${cwd}" does not exist`, "cwd");
    }
    if (!await insideAllowedRoots(real, this.#options.projectRoots())) {
      throw invalidRequest(
        `Working directory "${cwd}" is outside the configured project roots`,
        "cwd",
      );
    }
    return real;
  }

  /** The messages of `session` from its agent's transcript; null when it cannot be read. */
  history(session: DiscoveredSession): Promise<ImportedMessage[] | null> {
    return this.storeFor(session.harness).store.history(session);
  }

  /**
   * The store of `harness`, by its protocol: Claude Code's transcripts for
   * the `claude` protocol, Codex's rollouts for `codex-app-server`, and ACP
   * `session/list` for an ACP agent — with, for the built-ins, Gemini CLI's
   * chat files (it does not answer `session/list`) and opencode's store (the
   * messages). A configured harness of a protocol is taken to be that agent
   * (or a wrapper of it), keeping its sessions where the agent does.
   */
  #store(harness: HarnessSpec): AgentSessionStore | null {
    const { homes } = this.#options;
    const acpList = () =>
      new AcpSessionList({
        harness,
        spawner: this.#options.spawner,
        defaultCwd: this.#options.defaultCwd,
      });
    if (harness.builtin && harness.id === "gemini") return new GeminiStore(homes.geminiHome);
    if (harness.builtin && harness.id === "opencode") {
      return new OpencodeStore(acpList(), homes.dataHome);
    }
    switch (harness.protocol) {
      case "claude":
        return new ClaudeStore(homes.claudeConfigDir, harness.id);
      case "codex-app-server":
        return new CodexStore(homes.codexHome, harness.id);
      case "acp":
        return new AcpStore(acpList());
      default:
        return null;
    }
  }

  #installedBuiltins(): string[] {
    return [...this.#options.harnesses().values()]
      .filter((h) => h.builtin)
      .filter((h) => {
        const status = this.#options.capabilities.harness(h.id)?.status;
        return status !== undefined && status !== "disabled";
      })
      .map((h) => h.id)
      .sort();
  }

  /** Only sessions whose directory lies inside the project roots (all, when none are set). */
  async #insideRoots(sessions: DiscoveredSession[]): Promise<DiscoveredSession[]> {
    const roots = this.#options.projectRoots();
    if (roots === null) return sessions;
    const kept: DiscoveredSession[] = [];
    for (const session of sessions) {
      if (session.cwd !== null && await insideAllowedRoots(session.cwd, roots)) kept.push(session);
    }
    return kept;
  }
}
