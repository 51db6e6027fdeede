import type { SvcClient } from "../client/client.ts";
import type { SessionRecord } from "../store/sessions_store.ts";
import type { ChatTerminal } from "./chat_loop.ts";
import { describeError } from "./output.ts";

/**
 * `svc chat ID` and `svc attach ID` on an ended conversation (D26): says it
 * ended and, when it can be resumed, resumes it with `--resume` or when the
 * person at the terminal says yes. Returns the record to converse with (the
 * resumed one, or the ended one to print its transcript), or null when the
 * resume was refused (the reason is shown).
 */
export async function offerResume(
  client: SvcClient,
  session: SessionRecord,
  terminal: ChatTerminal,
  { resume }: { resume: boolean },
): Promise<SessionRecord | null> {
  if (session.status === "running") return session;
  const ended = `Session ${session.id} ended (${session.status})`;
  if (!session.resumable) {
    terminal.notice(
      resume ? `${ended} and cannot be resumed` : `${ended}: its transcript follows`,
    );
    return resume ? null : session;
  }
  if (!resume) {
    if (!terminal.interactive) {
      terminal.notice(`${ended}: "svc sessions resume ${session.id}" continues it`);
      return session;
    }
    terminal.notice(
      `${ended}. Resume it? Type y to continue the conversation, anything else not to`,
    );
    const input = await terminal.next();
    const answer = input?.type === "line" ? input.text.trim().toLowerCase() : "";
    if (answer !== "y" && answer !== "yes") return session;
  }
  const response = await client.post<SessionRecord>(
    `/sessions/${encodeURIComponent(session.id)}/resume`,
    {},
  );
  if (!response.ok) {
    terminal.notice(describeError(response.body));
    return null;
  }
  terminal.notice(`Resumed ${session.id} (resume ${response.body.resumes})`);
  return response.body;
}
