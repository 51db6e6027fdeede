/** Building blocks of the views: a fixed-width cell, a row, a heading, a windowed list. */
import { Box, Text } from "ink";
import type { ReactNode } from "react";

/** One cell of a table row, cut to `width` columns (wide characters measured by Ink). */
export function Cell(
  props: { width?: number; grow?: boolean; color?: string; dim?: boolean; children?: ReactNode },
) {
  return (
    <Box
      width={props.width}
      flexGrow={props.grow ? 1 : 0}
      flexShrink={props.grow ? 1 : 0}
      flexBasis={props.grow ? 0 : undefined}
      marginRight={1}
    >
      <Text wrap="truncate-end" color={props.color} dimColor={props.dim}>{props.children}</Text>
    </Box>
  );
}

/** A table row; the selected one is shown inverted. */
export function Row(props: { selected?: boolean; children: ReactNode }) {
  return (
    <Box>
      <Text inverse={props.selected}>{props.selected ? "›" : " "}</Text>
      {props.children}
    </Box>
  );
}

/** The window of `count` items that keeps `selected` visible in `height` lines. */
export function windowOf(count: number, selected: number, height: number): [number, number] {
  if (count <= height) return [0, count];
  const start = Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
  return [start, start + height];
}

/** A muted line saying a list is empty. */
export function Empty(props: { children: ReactNode }) {
  return <Text dimColor>{props.children}</Text>;
}
