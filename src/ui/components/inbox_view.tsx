/** View 6, inbox (D25): results of routine runs, unread first; Enter reads one. */
import { Box, Text } from "ink";
import { safeLine, shortId } from "../format.ts";
import type { InboxEntry } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { TextPager } from "./text_pager.tsx";
import { useTint } from "./theme.ts";

export function InboxView(
  props: {
    entries: readonly InboxEntry[];
    selected: number;
    height: number;
    reading: { runId: string; lines: readonly string[]; scroll: number } | null;
  },
) {
  const tint = useTint();
  if (props.reading) {
    return (
      <TextPager
        paged={{
          title: `result of ${props.reading.runId} · ↑/↓ scroll · m marks read · Esc back`,
          lines: props.reading.lines,
          scroll: props.reading.scroll,
        }}
        height={props.height}
      />
    );
  }
  const [start, end] = windowOf(
    props.entries.length,
    props.selected,
    Math.max(1, props.height - 2),
  );
  return (
    <Box flexDirection="column">
      <Text dimColor>Enter reads · m marks read · unread first</Text>
      <Row>
        <Cell width={2} dim />
        <Cell width={13} dim>RUN</Cell>
        <Cell width={16} dim>ROUTINE</Cell>
        <Cell width={10} dim>STATUS</Cell>
        <Cell grow dim>RESULT</Cell>
      </Row>
      {props.entries.length === 0 && <Empty>The inbox is empty.</Empty>}
      {props.entries.slice(start, end).map((entry, index) => (
        <Row key={entry.runId} selected={start + index === props.selected}>
          <Cell width={2} color={tint("cyan")}>{entry.readAt === null ? "•" : " "}</Cell>
          <Cell width={13}>{shortId(entry.runId)}</Cell>
          <Cell width={16}>{safeLine(entry.routineId)}</Cell>
          <Cell width={10} color={entry.status === "succeeded" ? undefined : tint("red")}>
            {entry.status}
          </Cell>
          <Cell grow>{safeLine(entry.headline ?? "")}</Cell>
        </Row>
      ))}
    </Box>
  );
}
