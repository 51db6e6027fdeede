/** View 3, approvals (D25): every pending request, oldest first, with a live countdown. */
import { Box, Text } from "ink";
import { countdown, safeLine } from "../format.ts";
import type { PendingApproval, SessionRecord } from "../model.ts";
import type { RequestPanel } from "../request_panel.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { shownId, splitHostedId } from "../hosts.ts";
import { useTint } from "./theme.ts";

/** The HOST column of a view of several hosts (a longer context name is cut). */
const HOST_WIDTH = 12;

export function ApprovalsView(
  props: {
    approvals: readonly PendingApproval[];
    sessions: ReadonlyMap<string, SessionRecord>;
    selected: number;
    height: number;
    nowMs: number;
    /** The selected request, shown whole before its keys. */
    request: RequestPanel | null;
    /** The columns of a session id, as the fleet shows it (`uniquePrefixLength`). */
    idWidth: number;
    /** Several hosts (D32): a HOST column, ids without their host. */
    multiHost: boolean;
  },
) {
  const tint = useTint();
  const chosen = props.approvals[props.selected];
  const [start, end] = windowOf(
    props.approvals.length,
    props.selected,
    Math.max(1, props.height - 4 - (props.request ? props.request.rows.length + 2 : 0)),
  );
  return (
    <Box flexDirection="column">
      <Text dimColor>Pending requests, oldest first · the selected one in full below</Text>
      <Row>
        {props.multiHost && <Cell width={HOST_WIDTH} dim>HOST</Cell>}
        <Cell width={props.idWidth} dim>SESSION</Cell>
        <Cell width={8} dim>HARNESS</Cell>
        <Cell width={12} dim>TOOL</Cell>
        <Cell grow dim>REQUEST</Cell>
        <Cell width={5} dim>LEFT</Cell>
      </Row>
      {props.approvals.length === 0 && <Empty>No request waits.</Empty>}
      {props.approvals.slice(start, end).map((approval, index) => {
        const left = Date.parse(approval.expiresAt) - props.nowMs;
        return (
          <Row
            key={`${approval.sessionId} ${approval.requestId}`}
            selected={start + index === props.selected}
          >
            {props.multiHost && (
              <Cell width={HOST_WIDTH}>{safeLine(splitHostedId(approval.sessionId).host)}</Cell>
            )}
            <Cell width={props.idWidth}>
              {shownId(approval.sessionId, props.multiHost).slice(0, props.idWidth)}
            </Cell>
            <Cell width={8}>
              {safeLine(props.sessions.get(approval.sessionId)?.harness ?? "?")}
            </Cell>
            <Cell width={12} color={tint("yellow")}>{safeLine(approval.tool)}</Cell>
            <Cell grow>{safeLine(approval.summary)}</Cell>
            <Cell width={5} color={left < 60_000 ? tint("red") : undefined}>
              {countdown(Date.parse(approval.expiresAt), props.nowMs)}
            </Cell>
          </Row>
        );
      })}
      {chosen && props.request && (
        <Box marginTop={1} flexDirection="column">
          <Text dimColor wrap="truncate-end">
            {`request ${safeLine(chosen.requestId)} of ${
              props.multiHost
                ? `${shownId(chosen.sessionId, true)} on ${
                  safeLine(splitHostedId(chosen.sessionId).host)
                }`
                : chosen.sessionId
            }`}
          </Text>
          {props.request.rows.map((row, index) => (
            <Text key={index} wrap="truncate-end">{row === "" ? " " : row}</Text>
          ))}
          <Text dimColor wrap="truncate-end">{props.request.keys}</Text>
        </Box>
      )}
    </Box>
  );
}
