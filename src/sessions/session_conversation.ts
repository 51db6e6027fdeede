/**
 * A protocol session's conversation (D16) tied to its start: the adapter of
 * its protocol, and what the conversation may do to the session — write
 * lines to the agent, record and publish events, update the row, ask for
 * permission decisions (D18, D28) — plus, on a resume, the state it goes on
 * from (D26).
 */
import { isoTime } from "../clock.ts";
import { Conversation, type ConversationIo } from "../agents/conversation.ts";
import { type AgentProtocolId, NO_USAGE } from "../agents/protocol.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import { redactText } from "../events/redact.ts";
import type { SessionRow } from "../store/sessions_store.ts";
import { closeStdin, type LiveSession } from "./live_session.ts";
import type { SupervisorOptions } from "./supervisor.ts";

/** What a conversation uses of the supervisor's options. */
export type ConversationDeps = Pick<
  SupervisorOptions,
  | "events"
  | "sessions"
  | "live"
  | "log"
  | "clock"
  | "adapters"
  | "timeouts"
  | "publish"
  | "decide"
  | "checkRules"
>;

/** The start a conversation runs in. */
export interface ConversationStart {
  protocol: AgentProtocolId;
  cwd: string;
  model: string | null;
  /** The first turn; null on a resume. */
  prompt: string | null;
  oneShot: boolean;
  approvals: ApprovalPolicy;
  /** The agent's own id of the conversation to load, on a resume. */
  resumeFrom: string | null;
  /** The row as it ended, on a resume: its turns and usage go on. */
  resumed: SessionRow | null;
  /** Ends the start's processes (the conversation's turn or idle timeout). */
  kill: () => void;
}

/** The conversation of `live`, not yet started. */
export function newConversation(
  live: LiveSession,
  deps: ConversationDeps,
  start: ConversationStart,
): Conversation {
  const adapter = deps.adapters[start.protocol]({
    cwd: start.cwd,
    model: start.model,
    resume: start.resumeFrom,
  });
  const resumed = start.resumed;
  return new Conversation(adapter, {
    io: conversationIo(live, deps, start),
    clock: deps.clock,
    timeouts: deps.timeouts(),
    prompt: start.prompt,
    oneShot: start.oneShot,
    ...(resumed
      ? {
        resumed: {
          agentSessionId: resumed.agent_session_id,
          turns: resumed.turns,
          usage: resumed.usage_json === null ? NO_USAGE : JSON.parse(resumed.usage_json),
        },
      }
      : {}),
  });
}

/** What a conversation may do to its session: write lines, record events, update the row. */
function conversationIo(
  live: LiveSession,
  deps: ConversationDeps,
  { approvals, kill }: ConversationStart,
): ConversationIo {
  const { events, sessions, log } = deps;
  const sessionId = live.row.id;
  const encoder = new TextEncoder();
  return {
    write: (line) => {
      const stdin = live.stdin;
      if (!stdin) return;
      stdin.write(encoder.encode(line + "\n")).catch(() => {
        if (live.stdin === stdin) live.stdin = null; // The agent closed its stdin.
      });
      void events.append(sessionId, "input", { data: redactText(line + "\n") });
    },
    record: (kind, payload) => events.append(sessionId, kind, payload),
    publish: (kind, payload) => {
      const afterSeq = events.lastAppendedSeq(sessionId);
      if (afterSeq !== null) deps.live.publish(sessionId, { kind, payload, afterSeq });
    },
    closeInput: () => closeStdin(live),
    kill,
    changed: (state) => {
      if (state.activity !== live.row.activity) {
        live.row.activity = state.activity;
        deps.publish("session.updated", {
          sessionId,
          status: "running",
          activity: state.activity,
        });
      }
      try {
        sessions.update(sessionId, {
          activity: state.activity,
          agent_session_id: state.agentSessionId,
          agent_resumable: state.resumable ? 1 : 0,
          turns: state.turns,
          usage_json: JSON.stringify(state.usage),
          updated_at: isoTime(deps.clock.now()),
        });
      } catch (error) {
        log.error("Cannot update the session record", { sessionId, error });
      }
    },
    decide: (request, signal) => deps.decide(sessionId, approvals, request, signal),
    checkRules: (request) => deps.checkRules?.(sessionId, request) ?? Promise.resolve(null),
  };
}
