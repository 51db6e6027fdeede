import { createAcpAdapter } from "./acp.ts";
import { createClaudeAdapter } from "./claude.ts";
import { createCodexAppServerAdapter } from "./codex_app_server.ts";
import type { AdapterFactory, AgentProtocolId } from "./protocol.ts";

/** The adapter of each agent protocol (D16). */
export const ADAPTERS: Readonly<Record<AgentProtocolId, AdapterFactory>> = Object.freeze({
  "claude": createClaudeAdapter,
  "codex-app-server": createCodexAppServerAdapter,
  "acp": createAcpAdapter,
});
