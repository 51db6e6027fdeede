/** View 5, routines (D25): status, next due (local time), last run, health. */
import { Box, Text } from "ink";
import { safeLine, weekdayTime } from "../format.ts";
import { routineHealth, type RoutineOverview } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

export function RoutinesView(
  props: {
    routines: readonly RoutineOverview[];
    selected: number;
    height: number;
    history: { routineId: string; lines: readonly string[] } | null;
  },
) {
  const tint = useTint();
  const [start, end] = windowOf(
    props.routines.length,
    props.selected,
    Math.max(1, props.height - 2 - (props.history ? props.history.lines.length + 2 : 0)),
  );
  return (
    <Box flexDirection="column">
      <Text dimColor>r runs now · p pauses or activates · Enter shows the run history</Text>
      <Row>
        <Cell width={18} dim>ID</Cell>
        <Cell width={7} dim>STATUS</Cell>
        <Cell grow dim>NAME</Cell>
        <Cell width={10} dim>NEXT DUE</Cell>
        <Cell width={10} dim>LAST RUN</Cell>
        <Cell width={10} dim>HEALTH</Cell>
      </Row>
      {props.routines.length === 0 && <Empty>No routines. svc automations create adds one.</Empty>}
      {props.routines.slice(start, end).map((routine, index) => {
        const health = routineHealth(routine);
        return (
          <Row key={routine.id} selected={start + index === props.selected}>
            <Cell width={18}>{safeLine(routine.id)}</Cell>
            <Cell
              width={7}
              color={routine.status === "ACTIVE" ? tint("green") : undefined}
              dim={routine.status !== "ACTIVE"}
            >
              {routine.status.toLowerCase()}
            </Cell>
            <Cell grow>{safeLine(routine.name)}</Cell>
            <Cell width={10}>{weekdayTime(routine.nextDueAt)}</Cell>
            <Cell width={10}>{safeLine(routine.lastRun?.status ?? "-")}</Cell>
            <Cell width={10} color={health === "ok" ? undefined : tint("red")}>{health}</Cell>
          </Row>
        );
      })}
      {props.history && (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{`Runs of ${safeLine(props.history.routineId)} (Esc closes)`}</Text>
          {props.history.lines.map((line, index) => (
            <Text key={index} wrap="truncate-end">{line}</Text>
          ))}
        </Box>
      )}
    </Box>
  );
}
