/** The `?` overlay: the keys of the current view, read from the one keymap table. */
import { Box, Text } from "ink";
import { helpFor, type View, VIEW_TITLES } from "../keymap.ts";

export function HelpOverlay(props: { view: View }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{`Keys · ${VIEW_TITLES[props.view]} (? closes)`}</Text>
      {helpFor(props.view).map(({ keys, help }) => (
        <Box key={`${keys} ${help}`}>
          <Box width={9}>
            <Text bold>{keys}</Text>
          </Box>
          <Text wrap="truncate-end">{help}</Text>
        </Box>
      ))}
    </Box>
  );
}
