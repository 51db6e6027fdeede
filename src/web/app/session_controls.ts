/**
 * Which controls the session view offers (D30): what the session's state
 * permits, within the device's scopes (interrupt needs approve; input,
 * close, resume and kill need operate).
 */
import type { SessionRecord } from "../../ui/model.ts";
import { allows } from "./device.ts";

/** A control of the session view. */
export type SessionControl = "interrupt" | "close" | "resume" | "kill";

/** The controls offered, in the order shown, and whether the input box is. */
export function sessionControls(
  session: SessionRecord,
  scopes: readonly string[],
): { controls: SessionControl[]; input: boolean } {
  const running = session.status === "running";
  const operate = allows(scopes, "operate");
  const controls: SessionControl[] = [];
  if (running && session.activity !== "idle" && allows(scopes, "approve")) {
    controls.push("interrupt");
  }
  if (running && operate) controls.push("close", "kill");
  if (!running && operate && session.resumable === true) controls.push("resume");
  return { controls, input: operate && (running || session.resumable === true) };
}
