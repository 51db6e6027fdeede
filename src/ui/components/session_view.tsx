/**
 * View 4, the session (D25): the conversation rendered from typed events,
 * following live (or scrolled back), the pending request of this session,
 * and the input line (`i`).
 */
import { Box, Text } from "ink";
import { countdown, safeLine, STATE_STYLE } from "../format.ts";
import type { FocusLine, FocusSnapshot } from "../focus.ts";
import type { FleetState, PendingApproval, SessionRecord } from "../model.ts";
import { Empty } from "./cells.tsx";
import { YOU } from "../../cli/transcript.ts";
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
    /** Lines scrolled back from the newest (0: following live). */
    scroll: number;
    height: number;
    input: string | null;
    approval: PendingApproval | null;
    nowMs: number;
  },
) {
  const tint = useTint();
  const toneColor = (tone: FocusLine["tone"]) => {
    const color = TONE_COLOR[tone];
    return color === undefined ? undefined : tint(color);
  };
  const { session, focus } = props;
  if (session === null) {
    return <Empty>No session in focus: pick one in the fleet (1) and press Enter.</Empty>;
  }
  const style = props.state ? STATE_STYLE[props.state] : null;
  const footer = (props.approval ? 2 : 0) + (props.input !== null ? 1 : 0) +
    (focus.partial !== null ? 1 : 0);
  const room = Math.max(1, props.height - 2 - footer);
  const end = Math.max(0, focus.lines.length - props.scroll);
  const visible = focus.lines.slice(Math.max(0, end - room), end);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{session.id}</Text>
        {` ${safeLine(session.harness)} · `}
        <Text color={style ? tint(style.color) : undefined}>
          {style ? `${style.glyph} ${props.state}` : session.status}
        </Text>
        {` · ${session.turns} turns · ${safeLine(session.title)}`}
        {session.worktree ? ` · ${safeLine(session.worktree.branch)}` : ""}
      </Text>
      <Text dimColor wrap="truncate-end">
        {props.scroll > 0
          ? `scrolled back ${props.scroll} lines · G follows live`
          : focus.ended
          ? "ended · r resumes a conversation"
          : "following live · i types · Ctrl-C interrupts · x closes · K kills · ? keys"}
      </Text>
      {visible.length === 0 && <Empty>Nothing yet.</Empty>}
      {visible.map((line, index) => (
        <Text key={end - visible.length + index} wrap="truncate-end" color={toneColor(line.tone)}>
          {line.text === "" ? " " : line.text}
        </Text>
      ))}
      {focus.partial !== null && props.scroll === 0 && (
        <Text wrap="truncate-start" color={tint("green")}>{`${focus.partial}▍`}</Text>
      )}
      {props.approval && (
        <Box flexDirection="column">
          <Text color={tint("yellow")} wrap="truncate-end">
            {`? ${safeLine(props.approval.tool)}: ${safeLine(props.approval.summary)}`}
          </Text>
          <Text dimColor>
            {`y allow · N deny · a always · ${
              countdown(Date.parse(props.approval.expiresAt), props.nowMs)
            } left`}
          </Text>
        </Box>
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
