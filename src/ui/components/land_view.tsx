/** View 7, the land queue (D34): each item in queue order, its state, and why it did not land. */
import { Box, Text } from "ink";
import { uniquePrefixLength } from "../format.ts";
import type { LandRow } from "../land_queue_view.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

const STATE_COLORS: Partial<Record<LandRow["state"], string>> = {
  landed: "green",
  failed: "red",
  sent_back: "yellow",
};

export function LandView(props: { rows: readonly LandRow[]; selected: number; height: number }) {
  const tint = useTint();
  const idLength = uniquePrefixLength(props.rows.map((row) => row.sessionId));
  const [start, end] = windowOf(props.rows.length, props.selected, Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        Land queue, in order · Enter opens the session · X cancels · svc land A B queues
      </Text>
      <Row>
        <Cell width={idLength} dim>SESSION</Cell>
        <Cell width={11} dim>STATE</Cell>
        <Cell width={5} dim>TRIES</Cell>
        <Cell grow dim>WHY · TITLE</Cell>
      </Row>
      {props.rows.length === 0 && <Empty>Nothing to land. svc land A B queues sessions.</Empty>}
      {props.rows.slice(start, end).map((row, index) => {
        const color = STATE_COLORS[row.state];
        return (
          <Row key={row.itemId} selected={start + index === props.selected}>
            <Cell width={idLength}>{row.sessionId.slice(0, idLength)}</Cell>
            <Cell width={11} color={color ? tint(color) : undefined}>{row.label}</Cell>
            <Cell width={5}>{row.tries}</Cell>
            <Cell grow>{[row.detail, row.title].filter((part) => part !== "").join(" · ")}</Cell>
          </Row>
        );
      })}
    </Box>
  );
}
