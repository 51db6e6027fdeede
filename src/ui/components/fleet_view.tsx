/**
 * View 1, the fleet (D25): one row per session, live first, with its state
 * glyph. Each row is one line of text cut to its columns (`fit`), not a box
 * per cell: with 50 busy sessions the fleet redraws several times a second.
 */
import { Box, Text } from "ink";
import { age, basename, fit, money, safeLine, STATE_STYLE, tokens } from "../format.ts";
import { fleetColumns, fleetHeading } from "../fleet_layout.ts";
import { type FleetRow, projectOf } from "../model.ts";
import { shownId } from "../hosts.ts";
import { Empty, windowOf } from "./cells.tsx";
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
    /** The columns of a session id: the prefix that tells every known session apart. */
    idWidth: number;
    /** Several hosts (D32): a HOST column first, ids without their host. */
    multiHost: boolean;
    /** The hosts' names, for the HOST column's width. */
    hosts: readonly string[];
  },
) {
  const tint = useTint();
  const width = fleetColumns(props.width, {
    idWidth: props.idWidth,
    branches: props.rows.map((row) => safeLine(row.session.worktree?.branch)),
    hosts: props.multiHost ? props.hosts : [],
  });
  const line = (fields: {
    host: string;
    id: string;
    harness: string;
    title: string;
    project: string;
    turns: string;
    tokens: string;
    cost: string;
    branch: string;
    last: string;
  }) => ({
    // An id is cut, never ellipsised: its first characters are a prefix the CLI takes.
    before: (width.host > 0 ? `${fit(fields.host, width.host)} ` : "") +
      `${fields.id.slice(0, width.id).padEnd(width.id)} `,
    after: [
      fit(fields.harness, width.harness),
      fit(fields.title, width.title),
      ...(width.project > 0 ? [fit(fields.project, width.project)] : []),
      fit(fields.turns, width.turns),
      fit(fields.tokens, width.tokens),
      fit(fields.cost, width.cost),
      ...(width.branch > 0 ? [fit(fields.branch, width.branch)] : []),
      fit(fields.last, width.last),
    ].join(" "),
  });
  const header = line({
    host: "HOST",
    id: "ID",
    harness: "HARNESS",
    title: "TITLE",
    project: "PROJECT",
    turns: "TURNS",
    tokens: "TOKENS",
    cost: "COST",
    branch: "BRANCH",
    last: "LAST",
  });
  const [start, end] = windowOf(props.rows.length, props.selected, Math.max(1, props.height - 2));
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {fleetHeading(props.rows.length, props)}
      </Text>
      <Text dimColor wrap="truncate-end">
        {` ${header.before}${fit("STATE", width.state)} ${header.after}`}
      </Text>
      {props.rows.length === 0 && <Empty>No sessions. c starts one.</Empty>}
      {props.rows.slice(start, end).map((row, index) => {
        const { session } = row;
        const style = STATE_STYLE[row.state];
        const used = (session.usage?.inputTokens ?? 0) + (session.usage?.outputTokens ?? 0);
        const selected = start + index === props.selected;
        const text = line({
          host: safeLine(session.host ?? ""),
          id: shownId(session.id, props.multiHost),
          harness: safeLine(session.harness),
          title: safeLine(session.title),
          project: safeLine(basename(projectOf(session))),
          turns: String(session.turns),
          tokens: session.usage ? tokens(used) : "-",
          cost: money(session.usage?.costUsd),
          branch: safeLine(session.worktree?.branch ?? ""),
          last: age(row.lastEventAt, props.nowMs),
        });
        return (
          <Text key={session.id} wrap="truncate-end">
            <Text inverse={selected}>{selected ? "›" : " "}</Text>
            {text.before}
            <Text color={tint(style.color)}>{fit(`${style.glyph} ${row.state}`, width.state)}</Text>
            {` ${text.after}`}
          </Text>
        );
      })}
    </Box>
  );
}
