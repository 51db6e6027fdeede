/** View 1, the fleet (D25): one row per session, live first, with its state glyph. */
import { Box, Text } from "ink";
import {
  age,
  basename,
  money,
  safeLine,
  STATE_STYLE,
  tokens,
  uniquePrefixLength,
} from "../format.ts";
import type { FleetRow } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

export function FleetView(
  props: {
    rows: readonly FleetRow[];
    selected: number;
    height: number;
    width: number;
    nowMs: number;
    showEnded: boolean;
    filter: string;
    filtering: boolean;
  },
) {
  const tint = useTint();
  const wide = props.width >= 110;
  const idWidth = uniquePrefixLength(props.rows.map((row) => row.session.id));
  const [start, end] = windowOf(props.rows.length, props.selected, Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {props.filtering
          ? `filter: ${props.filter}█  (Enter keeps it, Esc clears)`
          : `${props.rows.length} sessions${
            props.showEnded ? " (ended shown: a)" : " live (a: show ended)"
          }${props.filter ? ` · filter "${props.filter}"` : ""}`}
      </Text>
      <Row>
        <Cell width={idWidth} dim>ID</Cell>
        <Cell width={11} dim>STATE</Cell>
        <Cell width={8} dim>HARNESS</Cell>
        <Cell grow dim>TITLE</Cell>
        {wide && <Cell width={14} dim>PROJECT</Cell>}
        <Cell width={5} dim>TURNS</Cell>
        <Cell width={6} dim>TOKENS</Cell>
        <Cell width={7} dim>COST</Cell>
        {wide && <Cell width={16} dim>BRANCH</Cell>}
        <Cell width={4} dim>LAST</Cell>
      </Row>
      {props.rows.length === 0 && <Empty>No sessions. c starts one.</Empty>}
      {props.rows.slice(start, end).map((row, index) => {
        const { session } = row;
        const style = STATE_STYLE[row.state];
        const used = (session.usage?.inputTokens ?? 0) + (session.usage?.outputTokens ?? 0);
        return (
          <Row key={session.id} selected={start + index === props.selected}>
            <Cell width={idWidth}>{session.id.slice(0, idWidth)}</Cell>
            <Cell width={11} color={tint(style.color)}>{`${style.glyph} ${row.state}`}</Cell>
            <Cell width={8}>{safeLine(session.harness)}</Cell>
            <Cell grow>{safeLine(session.title)}</Cell>
            {wide && <Cell width={14}>{safeLine(basename(session.project_root))}</Cell>}
            <Cell width={5}>{String(session.turns)}</Cell>
            <Cell width={6}>{session.usage ? tokens(used) : "-"}</Cell>
            <Cell width={7}>{money(session.usage?.costUsd)}</Cell>
            {wide && <Cell width={16}>{safeLine(session.worktree?.branch ?? "")}</Cell>}
            <Cell width={4}>{age(row.lastEventAt, props.nowMs)}</Cell>
          </Row>
        );
      })}
    </Box>
  );
}
