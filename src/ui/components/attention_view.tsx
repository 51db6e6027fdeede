/** View 2, attention (D25): the sessions that need the user, most urgent first. */
import { Box, Text } from "ink";
import { age, safeLine } from "../format.ts";
import type { AttentionItem } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { shownId } from "../hosts.ts";
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
    /** Several hosts (D32): a HOST column, ids without their host. */
    multiHost: boolean;
  },
) {
  const tint = useTint();
  const [start, end] = windowOf(props.items.length, props.selected, Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column">
      <Text dimColor>Sessions that need you · Enter opens · ! jumps to the next from any view</Text>
      <Row>
        <Cell width={14} dim>WHY</Cell>
        {props.multiHost && <Cell width={12} dim>HOST</Cell>}
        <Cell width={props.idWidth} dim>ID</Cell>
        <Cell width={8} dim>HARNESS</Cell>
        <Cell grow dim>TITLE</Cell>
        <Cell width={6} dim>SINCE</Cell>
      </Row>
      {props.items.length === 0 && <Empty>Nothing needs you.</Empty>}
      {props.items.slice(start, end).map((item, index) => (
        <Row key={item.session.id} selected={start + index === props.selected}>
          <Cell width={14} color={tint(REASON_COLOR[item.reason])}>{item.reason}</Cell>
          {props.multiHost && <Cell width={12}>{safeLine(item.session.host)}</Cell>}
          <Cell width={props.idWidth}>
            {shownId(item.session.id, props.multiHost).slice(0, props.idWidth)}
          </Cell>
          <Cell width={8}>{safeLine(item.session.harness)}</Cell>
          <Cell grow>{safeLine(item.session.title)}</Cell>
          <Cell width={6}>{age(item.since, props.nowMs)}</Cell>
        </Row>
      ))}
    </Box>
  );
}
