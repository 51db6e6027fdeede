/** Small pure formatters of `svc ui`: ages, counts, money, widths. */
import stringWidth from "string-width";
import { terminalSafe } from "../cli/terminal_text.ts";
import type { FleetState } from "./model.ts";

/** `42s`, `5m`, `3h`, `2d`: how long ago `atMs` was. */
export function age(atMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - atMs) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** `mm:ss` left until `atMs` (a request's timeout), `0:00` once passed. */
export function countdown(atMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.ceil((atMs - nowMs) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** `950`, `12.3k`, `4.5M` tokens; `-` when unknown. */
export function tokens(count: number | null | undefined): string {
  if (count === null || count === undefined) return "-";
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `$0.0123`, `$1.25`; `-` when unknown. */
export function money(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "-";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** The short id of a session or run (`ses_` and 8 characters): a label, not always unique. */
export function shortId(id: string): string {
  const underscore = id.indexOf("_");
  return underscore < 0 ? id.slice(0, 12) : id.slice(0, underscore + 9);
}

/**
 * How many leading characters tell every id of `ids` apart (at least `min`,
 * at most `max`): ids made in the same second share their time prefix, so a
 * fixed cut would show two sessions under one label.
 */
export function uniquePrefixLength(ids: Iterable<string>, min = 12, max = 20): number {
  const sorted = [...ids].sort();
  let needed = min;
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    needed = Math.max(needed, common + 1);
  }
  return Math.min(needed, max);
}

/** A path's last segment. */
export function basename(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== "");
  return parts.at(-1) ?? path;
}

/** One line of text from the daemon, safe for the terminal (controls shown, newlines flattened). */
export function safeLine(text: string | null | undefined): string {
  return terminalSafe((text ?? "").replace(/\r?\n/g, " "));
}

/** The glyph and colour of a fleet state. */
export const STATE_STYLE: Record<FleetState, { glyph: string; color: string }> = {
  starting: { glyph: "◌", color: "gray" },
  working: { glyph: "●", color: "green" },
  waiting: { glyph: "◆", color: "yellow" },
  idle: { glyph: "○", color: "cyan" },
  stalled: { glyph: "▲", color: "magenta" },
  completed: { glyph: "✓", color: "gray" },
  failed: { glyph: "✗", color: "red" },
  killed: { glyph: "✗", color: "gray" },
  orphaned: { glyph: "?", color: "gray" },
  parked: { glyph: "⏸", color: "yellow" },
  ended: { glyph: "·", color: "gray" },
};

/**
 * `text` in exactly `width` terminal columns: cut with `…` when longer (wide
 * characters and emoji measured as the terminal shows them), padded with
 * spaces when shorter. Rows built from these are one line of text, which
 * Ink lays out far faster than a box per cell (a busy fleet redraws often).
 */
export function fit(text: string, width: number): string {
  if (width <= 0) return "";
  const measured = stringWidth(text);
  if (measured <= width) return text + " ".repeat(width - measured);
  let out = "";
  let used = 0;
  for (const char of text) {
    const charWidth = stringWidth(char);
    if (used + charWidth > width - 1) break;
    out += char;
    used += charWidth;
  }
  return out + "…" + " ".repeat(Math.max(0, width - used - 1));
}

/** `Fri 02:00` (local), or `-`. */
export function weekdayTime(iso: string | null): string {
  if (iso === null) return "-";
  const date = new Date(iso);
  const day = date.toLocaleDateString("en-GB", { weekday: "short" });
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
