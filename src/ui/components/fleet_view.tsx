/**
 * View 1, the fleet (D25): one row per session, live first, with its state
 * glyph. Each row is one line of text cut to its columns (`fit`), not a box
 * per cell: with 50 busy sessions the fleet redraws several times a second.
 */
import { Box, Text } from "ink";
import {
  age,
  basename,
  fit,
  money,
  safeLine,
  STATE_STYLE,
  tokens,
  uniquePrefixLength,
} from "../format.ts";
import type { FleetRow } from "../model.ts";
import { Empty, windowOf } from "./cells.tsx";
import { useTint } from "./theme.ts";

/** The columns of the fleet at `width`: project and branch only on a wide terminal. */
function columns(width: number, idWidth: number) {
  const wide = width >= 110;
  const fixed = { id: idWidth, state: 11, harness: 8, turns: 5, tokens: 6, cost: 7, last: 4 };
  const project = wide ? 14 : 0;
  const branch = wide ? 16 : 0;
  const gaps = 8 + (wide ? 2 : 0);
  const used = Object.values(fixed).reduce((sum, n) => sum + n, 0) + project + branch + gaps + 1;
  return { ...fixed, project, branch, title: Math.max(8, width - used) };
}

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
  const width = columns(props.width, uniquePrefixLength(props.rows.map((row) => row.session.id)));
  const line = (fields: {
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
    before: `${fields.id.slice(0, width.id).padEnd(width.id)} `,
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
        {props.filtering
          ? `filter: ${props.filter}█  (Enter keeps it, Esc clears)`
          : `${props.rows.length} sessions${
            props.showEnded ? " (ended shown: a)" : " live (a: show ended)"
          }${props.filter ? ` · filter "${props.filter}"` : ""}`}
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
          id: session.id,
          harness: safeLine(session.harness),
          title: safeLine(session.title),
          project: safeLine(basename(session.project_root)),
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
