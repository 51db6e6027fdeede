/**
 * View 4, the session (D25): the conversation rendered from typed events,
 * following live (or scrolled back), the pending request of this session,
 * and the input line (`i`).
 */
import { Box, Text } from "ink";
import { useMemo } from "react";
import { safeLine, STATE_STYLE } from "../format.ts";
import type { FocusLine, FocusSnapshot } from "../focus.ts";
import type { FleetState, SessionRecord } from "../model.ts";
import type { RequestPanel } from "../request_panel.ts";
import type { TranscriptScroll, TranscriptWindow } from "../transcript_window.ts";
import { Empty } from "./cells.tsx";
import { shownId, splitHostedId } from "../hosts.ts";
import { YOU } from "../../cli/transcript.ts";
import { counted } from "../../count_text.ts";
import { useTint } from "./theme.ts";

const TONE_COLOR: Record<FocusLine["tone"], string | undefined> = {
  you: "cyan",
  agent: "green",
  bad: "red",
  dim: "gray",
  plain: undefined,
};

export function SessionView(
  props: {
    session: SessionRecord | null;
    state: FleetState | null;
    focus: FocusSnapshot;
    /** Wraps the conversation into rows, once per line and width. */
    transcript: TranscriptWindow;
    /** Where the user scrolled to (null: following live). */
    scroll: TranscriptScroll;
    /** Rows of the conversation (the view's layout: request_panel.ts). */
    height: number;
    width: number;
    input: string | null;
    /** The session's pending request, shown whole before its keys. */
    request: RequestPanel | null;
    /** Several hosts (D32): the id without its host, and the host named. */
    multiHost: boolean;
  },
) {
  const tint = useTint();
  const toneColor = (tone: FocusLine["tone"]) => {
    const color = TONE_COLOR[tone];
    return color === undefined ? undefined : tint(color);
  };
  const { session, focus, transcript, scroll, width } = props;
  const partial = focus.partial !== null && scroll === null ? focus.partial : null;
  const ended = session !== null && session.status !== "running";
  const { height } = props;
  // Only the rows on screen reach Ink: a tick or a key re-wraps nothing.
  const shown = useMemo(
    () => transcript.rows(focus.lines, { width, height, scroll }),
    [transcript, focus.lines, width, height, scroll],
  );
  if (session === null) {
    return <Empty>No session in focus: pick one in the fleet (1) and press Enter.</Empty>;
  }
  const style = props.state ? STATE_STYLE[props.state] : null;
  const below = shown.linesBelow;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{shownId(session.id, props.multiHost)}</Text>
        {props.multiHost ? ` on ${safeLine(splitHostedId(session.id).host)}` : ""}
        {` ${safeLine(session.harness)} · `}
        <Text color={style ? tint(style.color) : undefined}>
          {style ? `${style.glyph} ${props.state}` : session.status}
        </Text>
        {` · ${counted(session.turns, "turn")} · ${safeLine(session.title)}`}
        {session.worktree ? ` · ${safeLine(session.worktree.branch)}` : ""}
      </Text>
      <Text dimColor wrap="truncate-end">
        {scroll !== null
          ? `scrolled back ${counted(below, "line")} · G follows live`
          : focus.ended
          ? "ended · i types a turn that resumes it · r resumes"
          : "following live · i types · Ctrl-C interrupts · x closes · K kills · ? keys"}
      </Text>
      {shown.rows.length === 0 && <Empty>Nothing yet.</Empty>}
      {shown.rows.map((row) => (
        <Text key={row.key} wrap="truncate-end" color={toneColor(row.tone)}>
          {row.text === "" ? " " : row.text}
        </Text>
      ))}
      {partial !== null && (
        <Text wrap="truncate-start" color={tint("green")}>
          {`${transcript.tail(partial, width - 1)}▍`}
        </Text>
      )}
      {props.request && (
        <Box flexDirection="column">
          {props.request.rows.map((row, index) => (
            <Text key={index} color={tint("yellow")} wrap="truncate-end">
              {row === "" ? " " : row}
            </Text>
          ))}
          <Text dimColor wrap="truncate-end">{props.request.keys}</Text>
        </Box>
      )}
      {props.input !== null && ended && (
        <Text dimColor wrap="truncate-end">
          ended · Enter resumes the conversation and sends this
        </Text>
      )}
      {props.input !== null && (
        <Text wrap="truncate-start">
          <Text color={tint("cyan")} bold>{YOU}</Text>
          {props.input}
          <Text inverse></Text>
        </Text>
      )}
    </Box>
  );
}
