/**
 * Gemini CLI 0.61 names a conversation's chat file after the UTC minute its
 * recording started; a new process that loads the conversation in that same
 * minute writes over the file and the conversation is lost for good
 * (docs/harnesses.md, issue 38 item 5). The recording started before the
 * session last ended, so a load in a later minute than that end is safe:
 * svc waits for it rather than lose the conversation.
 */
import type { SessionRow } from "../store/sessions_store.ts";
import type { HarnessSpec } from "./harnesses.ts";

/** Past the minute boundary by this much, so that the agent's clock is past it too. */
const BOUNDARY_MARGIN_MS = 1000;
/**
 * The longest wait: a minute and the margin. A longer one means the clock
 * went back before the session's end, and the resume is refused instead.
 */
export const MAX_LOAD_WAIT_MS = 60_000 + BOUNDARY_MARGIN_MS;

/**
 * How long a resume of `row` with `harness` must wait before its agent may
 * load the conversation at `now` (ms since the epoch): 0 but for the
 * built-in gemini in the UTC minute the session last ended.
 */
export function loadWaitMs(harness: HarnessSpec, row: SessionRow, now: number): number {
  if (!harness.builtin || harness.id !== "gemini" || row.ended_at === null) return 0;
  const endedMinute = Math.floor(Date.parse(row.ended_at) / 60_000);
  if (Math.floor(now / 60_000) > endedMinute) return 0;
  return Math.max(0, (endedMinute + 1) * 60_000 + BOUNDARY_MARGIN_MS - now);
}

/** The `agent.notice` said while a resume waits `waitMs` for the minute boundary. */
export function loadWaitNotice(waitMs: number, now: number): string {
  const until = new Date(now + waitMs).toISOString().slice(11, 19);
  return `Waiting ${Math.ceil(waitMs / 1000)} s, until ${until} UTC, before Gemini CLI loads ` +
    "the conversation: a load in the minute its recording started would lose it";
}
