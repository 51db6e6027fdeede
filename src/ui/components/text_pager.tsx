/** A page of lines to read (an inbox result, a worktree's diff), scrolled by the keys. */
import { Box, Text } from "ink";
import { useTint } from "./theme.ts";

import type { Paged } from "../paged_scroll.ts";

export type { Paged };

export function TextPager(
  props: { paged: Paged; height: number; tone?: (line: string) => string | undefined },
) {
  const tint = useTint();
  const colour = (line: string) => {
    const name = props.tone?.(line);
    return name === undefined ? undefined : tint(name);
  };
  const room = Math.max(1, props.height - 1);
  const { paged } = props;
  const lines = paged.lines.slice(paged.scroll, paged.scroll + room);
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">{paged.title}</Text>
      {lines.map((line, index) => (
        <Text key={paged.scroll + index} wrap="truncate-end" color={colour(line)}>
          {line === "" ? " " : line}
        </Text>
      ))}
    </Box>
  );
}

/** The colour of a diff line: additions, removals and hunk heads. */
export function diffTone(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---")) return undefined;
  if (line.startsWith("+")) return "green";
  if (line.startsWith("-")) return "red";
  if (line.startsWith("@@")) return "cyan";
  return undefined;
}
