import type { Io } from "./command.ts";

/** A stream that can tell whether it is a terminal (`Deno.stdout`, `Deno.stderr`). */
export interface TerminalStream {
  isTerminal(): boolean;
}

/**
 * Whether to colour text written to `stream`: only on a terminal, and never
 * when `NO_COLOR` is set to a non-empty value (https://no-color.org).
 */
export function useColor(io: Io, stream: TerminalStream): boolean {
  return !io.env("NO_COLOR") && stream.isTerminal();
}

/** Faint text (SGR 2, reset by 22). */
export function dim(text: string): string {
  return `\x1b[2m${text}\x1b[22m`;
}

/** Bold text (SGR 1, reset by 22). */
export function bold(text: string): string {
  return `\x1b[1m${text}\x1b[22m`;
}

/** Red text (SGR 31, reset by 39). */
export function red(text: string): string {
  return `\x1b[31m${text}\x1b[39m`;
}

/** Green text (SGR 32, reset by 39). */
export function green(text: string): string {
  return `\x1b[32m${text}\x1b[39m`;
}

/** Yellow text (SGR 33, reset by 39). */
export function yellow(text: string): string {
  return `\x1b[33m${text}\x1b[39m`;
}

/** Cyan text (SGR 36, reset by 39). */
export function cyan(text: string): string {
  return `\x1b[36m${text}\x1b[39m`;
}
