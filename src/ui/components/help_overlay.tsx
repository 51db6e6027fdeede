/**
 * The `?` overlay: every key from the one keymap table (D25), the current
 * view's first, laid out by help_page.ts in columns and pages.
 */
import { Box, Text } from "ink";
import { HELP_COLUMN_WIDTH, type HelpPage } from "../help_page.ts";
import { type View, VIEW_TITLES } from "../keymap.ts";

export function HelpOverlay(props: { view: View; help: HelpPage }) {
  const { columns, page, pages } = props.help;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{`Keys · ${VIEW_TITLES[props.view]} first`}</Text>
      <Box>
        {columns.map((column, index) => (
          <Box key={index} flexDirection="column" width={HELP_COLUMN_WIDTH}>
            {column.map((row, at) =>
              row.kind === "title"
                ? <Text key={at} bold underline>{row.text}</Text>
                : row.kind === "gap"
                ? <Text key={at}></Text>
                : (
                  <Box key={at}>
                    <Box width={8} flexShrink={0}>
                      <Text bold>{row.keys}</Text>
                    </Box>
                    <Text>{row.help}</Text>
                  </Box>
                )
            )}
          </Box>
        ))}
      </Box>
      <Text dimColor>
        {pages > 1
          ? `page ${page + 1} of ${pages} · ${page + 1 < pages ? "PgDn more · " : ""}Esc closes`
          : "Esc closes"}
      </Text>
    </Box>
  );
}
