/**
 * The `?` overlay: the keys of the current view, read from the one keymap
 * table, in two columns so every key fits on a 24-line terminal.
 */
import { Box, Text } from "ink";
import { helpFor, type View, VIEW_TITLES } from "../keymap.ts";

export function HelpOverlay(props: { view: View; width: number }) {
  const lines = helpFor(props.view);
  const half = Math.ceil(lines.length / 2);
  const columns = [lines.slice(0, half), lines.slice(half)];
  const columnWidth = Math.max(20, Math.floor((props.width - 4) / 2));
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{`Keys · ${VIEW_TITLES[props.view]} (? closes)`}</Text>
      <Box>
        {columns.map((column, index) => (
          <Box key={index} flexDirection="column" width={columnWidth}>
            {column.map(({ keys, help }) => (
              <Box key={`${keys} ${help}`}>
                <Box width={8} flexShrink={0}>
                  <Text bold wrap="truncate-end">{keys}</Text>
                </Box>
                <Text wrap="truncate-end">{help}</Text>
              </Box>
            ))}
          </Box>
        ))}
      </Box>
    </Box>
  );
}
