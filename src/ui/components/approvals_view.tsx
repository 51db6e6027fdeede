/** View 3, approvals (D25): every pending request, oldest first, with a live countdown. */
import { Box, Text } from "ink";
import { countdown, safeLine, shortId } from "../format.ts";
import { profileText } from "../../policy/permission_profile.ts";
import type { PendingApproval, SessionRecord } from "../model.ts";
import { Cell, Empty, Row, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

export function ApprovalsView(
  props: {
    approvals: readonly PendingApproval[];
    sessions: ReadonlyMap<string, SessionRecord>;
    selected: number;
    height: number;
    nowMs: number;
  },
) {
  const tint = useTint();
  const chosen = props.approvals[props.selected];
  const [start, end] = windowOf(
    props.approvals.length,
    props.selected,
    Math.max(1, props.height - 5),
  );
  return (
    <Box flexDirection="column">
      <Text dimColor>y allow · n deny · a always (asks where) · oldest first</Text>
      <Row>
        <Cell width={13} dim>SESSION</Cell>
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
            <Cell width={13}>{shortId(approval.sessionId)}</Cell>
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
      {chosen && (
        <Box marginTop={1} flexDirection="column">
          <Text dimColor>{`request ${safeLine(chosen.requestId)} of ${chosen.sessionId}`}</Text>
          <Text wrap="wrap">{safeLine(chosen.summary)}</Text>
          {chosen.profile && (
            <Text wrap="wrap" color={tint("yellow")}>
              {safeLine(`allowing grants: ${profileText(chosen.profile)}`)}
            </Text>
          )}
        </Box>
      )}
    </Box>
  );
}
