/**
 * Colour on or off for every component (`--no-color`, `NO_COLOR`): views
 * ask `useTint()` for a colour and get undefined when colour is off, so no
 * view can forget the switch.
 */
import { createContext, useContext } from "react";

export const ColorContext = createContext(true);

/** `color` when colour is on, else undefined (Ink then sets none). */
export function useTint(): (color: string) => string | undefined {
  const on = useContext(ColorContext);
  return (color) => on ? color : undefined;
}
