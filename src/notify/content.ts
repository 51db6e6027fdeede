/**
 * What a notification says (D31), pure: a title naming the harness, the
 * project, the session (title or short id) and the reason; a body with the
 * command or message; a link to the session in the web face. Agent text is
 * redacted with the event redactor, invisible characters are shown as
 * escapes, and both are bounded, so that a notification shows what is asked
 * and carries no secret nor a disguise.
 */
import { isoTime } from "../clock.ts";
import { redactText } from "../events/redact.ts";
import type { NotificationEvent } from "./notification_config.ts";

/** Something that needs the owner, before it is worded. */
export interface NotifyTrigger {
  event: NotificationEvent;
  /** The session it is about; null for what has none (a routine run that never started one). */
  sessionId: string | null;
  harness: string | null;
  sessionTitle: string | null;
  /** The session's project root. */
  projectRoot: string | null;
  /** What happened, in a few words after the subject: `needs approval: Bash`. */
  reason: string;
  /** The command, message or result; agent text (redacted here). */
  detail: string;
  /** When it happened (ms). */
  at: number;
}

/** One notification as every channel receives it; the `json` webhook body. */
export interface Notification {
  event: NotificationEvent | "test";
  title: string;
  body: string;
  sessionId: string | null;
  harness: string | null;
  /** The project's directory name. */
  project: string | null;
  /** The session (or the view) in the web face; null without `web.origins`. */
  url: string | null;
  at: string;
}

/** Bounds of the text (D31: a body of at most 300 characters). */
export const MAX_TITLE_CHARS = 160;
export const MAX_BODY_CHARS = 300;

/** Characters that could hide or reorder text: controls, bidi marks, zero-width ones, lone surrogates. */
const INVISIBLE =
  // deno-lint-ignore no-control-regex
  /[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]/gu;

/**
 * `text` redacted, every invisible character drawn as `<U+XXXX>` (newlines
 * too unless `keepNewlines`), cut to `max` characters with `…`.
 */
export function plainText(text: string, max: number, { keepNewlines = false } = {}): string {
  const escaped = redactText(text).replace(INVISIBLE, (char) => {
    if (keepNewlines && char === "\n") return char;
    return `<U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`;
  });
  const chars = [...escaped];
  return chars.length <= max ? escaped : chars.slice(0, max - 1).join("") + "…";
}

/** `ses_01J9ZK3M` of `ses_01J9ZK3MXYZ…`: as `svc ui` shows ids. */
export function shortSessionId(id: string): string {
  const underscore = id.indexOf("_");
  return underscore < 0 ? id.slice(0, 12) : id.slice(0, underscore + 9);
}

/** The last part of a path (the project's name). */
function baseName(path: string): string {
  return path.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || path;
}

/** `claude in shop (fix login)`: who, where, which session. */
function subject(trigger: NotifyTrigger): string {
  const who = trigger.harness ?? "svc";
  const where = trigger.projectRoot === null ? "" : ` in ${baseName(trigger.projectRoot)}`;
  const which = trigger.sessionId === null
    ? ""
    : ` (${trigger.sessionTitle || shortSessionId(trigger.sessionId)})`;
  return `${who}${where}${which}`;
}

/** The web face's link: the session, else a view (D30's URLs). */
function link(origin: string | null, trigger: { event: string; sessionId: string | null }) {
  if (origin === null) return null;
  if (trigger.sessionId !== null) return `${origin}/#/s/${encodeURIComponent(trigger.sessionId)}`;
  const view = trigger.event === "approval.waiting"
    ? "approvals"
    : trigger.event === "routine.result"
    ? "inbox"
    : "attention";
  return `${origin}/#/${view}`;
}

/** One trigger as a notification: "claude in shop (fix login) needs approval: Bash". */
export function describe(trigger: NotifyTrigger, origin: string | null): Notification {
  return {
    event: trigger.event,
    title: plainText(`${subject(trigger)} ${trigger.reason}`, MAX_TITLE_CHARS),
    body: plainText(trigger.detail, MAX_BODY_CHARS, { keepNewlines: true }),
    sessionId: trigger.sessionId,
    harness: trigger.harness,
    project: trigger.projectRoot === null ? null : plainText(baseName(trigger.projectRoot), 120),
    url: link(origin, trigger),
    at: isoTime(trigger.at),
  };
}

/** How many of what, per event: `[one, many]`. */
const COUNTED: Readonly<Record<NotificationEvent, [string, string]>> = {
  "approval.waiting": ["approval waiting", "approvals waiting"],
  "turn.finished": ["turn finished", "turns finished"],
  "session.failed": ["session failed", "sessions failed"],
  "session.stalled": ["session stalled", "sessions stalled"],
  "session.parked": ["session parked", "sessions parked"],
  "routine.result": ["routine result", "routine results"],
  "land.finished": ["land finished", "lands finished"],
};

/**
 * Several triggers of one event as one notification: "12 approvals waiting
 * in 7 sessions" (one session: named, as a single one is). The body lists
 * the first of them.
 */
export function summarize(triggers: readonly NotifyTrigger[], origin: string | null): Notification {
  const first = triggers[0];
  const sessions = new Set(triggers.map((trigger) => trigger.sessionId ?? ""));
  const [one, many] = COUNTED[first.event];
  const count = `${triggers.length} ${triggers.length === 1 ? one : many}`;
  const oneSession = sessions.size === 1 && first.sessionId !== null;
  const title = oneSession
    ? `${subject(first)}: ${count}`
    : first.event === "approval.waiting" || first.event === "turn.finished"
    ? `${count} in ${sessions.size} sessions`
    : count;
  const lines = triggers.map((trigger) =>
    oneSession ? trigger.detail : `${subject(trigger)} ${trigger.reason}`
  );
  return {
    event: first.event,
    title: plainText(title, MAX_TITLE_CHARS),
    body: plainText(lines.join("\n"), MAX_BODY_CHARS, { keepNewlines: true }),
    sessionId: oneSession ? first.sessionId : null,
    harness: oneSession ? first.harness : null,
    project: oneSession && first.projectRoot !== null
      ? plainText(baseName(first.projectRoot), 120)
      : null,
    url: link(origin, { event: first.event, sessionId: oneSession ? first.sessionId : null }),
    at: isoTime(triggers[triggers.length - 1].at),
  };
}
