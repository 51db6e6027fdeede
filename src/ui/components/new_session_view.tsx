/** View 7, new session (D25): harness, project root, prompt, model, worktree → launch. */
import { Box, Text } from "ink";
import { safeLine } from "../format.ts";
import type { HarnessChoice, Snapshot } from "../model.ts";
import { Empty } from "./cells.tsx";
import { useTint } from "./theme.ts";
import {
  FORM_FIELDS,
  type FormField,
  type FormState,
  formUnavailable,
} from "../new_session_form.ts";

const LABELS: Record<FormField, string> = {
  harness: "harness",
  projectRoot: "project",
  prompt: "prompt",
  model: "model",
  worktree: "worktree",
};

export function NewSessionView(
  props: {
    form: FormState;
    harnesses: readonly HarnessChoice[];
    busy: boolean;
    connection: Snapshot["connection"];
  },
) {
  const tint = useTint();
  const unavailable = formUnavailable(props.harnesses, props.connection);
  if (unavailable !== null) return <Empty>{unavailable}</Empty>;
  const { form } = props;
  const value = (field: FormField): string => {
    switch (field) {
      case "harness": {
        const harness = props.harnesses[form.harness % props.harnesses.length];
        return `‹ ${safeLine(harness.label)} (${safeLine(harness.id)}) ›`;
      }
      case "worktree":
        return form.worktree ? "[x] in a new git worktree" : "[ ] in the checkout";
      default:
        return safeLine(form[field]);
    }
  };
  return (
    <Box flexDirection="column">
      <Text dimColor>
        ↑/↓ field · ←/→ harness · Space toggles worktree · Enter launches · Esc cancels
      </Text>
      {FORM_FIELDS.map((field) => {
        const active = field === form.field;
        const text = field === "model" && form.model === "" && !active ? "(default)" : value(field);
        return (
          <Box key={field}>
            <Box width={10}>
              <Text bold={active} color={active ? tint("cyan") : undefined}>{LABELS[field]}</Text>
            </Box>
            <Text wrap="truncate-start" inverse={active}>
              {text}
              {active && field !== "harness" && field !== "worktree" ? "█" : ""}
            </Text>
          </Box>
        );
      })}
      {props.busy && <Text dimColor>Launching…</Text>}
    </Box>
  );
}
