/** View 2, attention (D25): the sessions that need the user, most urgent first. */
import { Box, Text } from "ink";
import { age, safeLine } from "../format.ts";
import type { AttentionItem } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

const REASON_COLOR: Record<AttentionItem["reason"], string> = {
  approval: "yellow",
  failed: "red",
  stalled: "magenta",
  "turn finished": "cyan",
};

export function AttentionView(
  props: {
    items: readonly AttentionItem[];
    selected: number;
    height: number;
    nowMs: number;
    /** The columns of a session id, as the fleet shows it (`uniquePrefixLength`). */
    idWidth: number;
  },
) {
  const tint = useTint();
  const [start, end] = windowOf(props.items.length, props.selected, Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column">
      <Text dimColor>Sessions that need you · Enter opens · ! jumps to the next from any view</Text>
      <Row>
        <Cell width={14} dim>WHY</Cell>
        <Cell width={props.idWidth} dim>ID</Cell>
        <Cell width={8} dim>HARNESS</Cell>
        <Cell grow dim>TITLE</Cell>
        <Cell width={6} dim>SINCE</Cell>
      </Row>
      {props.items.length === 0 && <Empty>Nothing needs you.</Empty>}
      {props.items.slice(start, end).map((item, index) => (
        <Row key={item.session.id} selected={start + index === props.selected}>
          <Cell width={14} color={tint(REASON_COLOR[item.reason])}>{item.reason}</Cell>
          <Cell width={props.idWidth}>{item.session.id.slice(0, props.idWidth)}</Cell>
          <Cell width={8}>{safeLine(item.session.harness)}</Cell>
          <Cell grow>{safeLine(item.session.title)}</Cell>
          <Cell width={6}>{age(item.since, props.nowMs)}</Cell>
        </Row>
      ))}
    </Box>
  );
}
