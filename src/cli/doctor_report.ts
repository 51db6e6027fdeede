/**
 * The report of `svc doctor` (issue 27 item 13): lines in three sections,
 * each marked ✓, ! or ✗ with its reason and a hint, the human table and the
 * exit code. Pure: `doctor.ts` gathers the facts.
 */
import type { Mark } from "./doctor_providers.ts";
import { terminalSafe } from "./terminal_text.ts";

/** The sections of the report, in print order. */
export const SECTIONS = ["harnesses", "home", "notifications", "service"] as const;
export type Section = typeof SECTIONS[number];

/** One checked thing. `fail` lines make `svc doctor` exit 1; `warn` lines do not. */
export interface DoctorLine {
  section: Section;
  /** What was checked: a harness id, `home`, `store`, `daemon`, `unit`. */
  subject: string;
  /** The aspect: `program`, `credentials`, `provider`, `daemon`… */
  check: string;
  mark: Mark;
  text: string;
  hint: string | null;
}

/** What `svc doctor --json` prints about one harness. */
export interface HarnessReport {
  id: string;
  label: string;
  builtin: boolean;
  program: string;
  /** The resolved path, or null when not found. */
  path: string | null;
  /** The version probe's first line, or null (not probed, failed or silent). */
  version: string | null;
  /** Whether the version probe exited 0 in time; null when not probed. */
  versionAnswered: boolean | null;
  /** The daemon's capability status for it, or null when no daemon answers. */
  daemonStatus: string | null;
  /** Null when not checked (not installed, or a configured program svc knows nothing about). */
  credentials: { mark: Mark; found: string[] } | null;
  provider: { host: string; port: number; source: string; answers: boolean | null } | null;
}

const MARKS: Readonly<Record<Mark, string>> = { ok: "✓", warn: "!", fail: "✗" };
const TITLES: Readonly<Record<Section, string>> = {
  harnesses: "Harnesses",
  home: "Home",
  notifications: "Notifications",
  service: "Service",
};

/** 1 when any line failed, else 0. */
export function doctorExitCode(lines: readonly DoctorLine[]): 0 | 1 {
  return lines.some((line) => line.mark === "fail") ? 1 : 0;
}

/**
 * The human table: one title per section, then one line per check,
 * `✓ subject  check  text` with ` — hint` when there is one. Terminal-safe:
 * paths and version lines come from the machine.
 */
export function formatDoctor(lines: readonly DoctorLine[]): string {
  const subjectWidth = Math.max(0, ...lines.map((line) => line.subject.length));
  const checkWidth = Math.max(0, ...lines.map((line) => line.check.length));
  const out: string[] = [];
  for (const section of SECTIONS) {
    const inSection = lines.filter((line) => line.section === section);
    if (inSection.length === 0) continue;
    if (out.length > 0) out.push("");
    out.push(TITLES[section]);
    for (const line of inSection) {
      const hint = line.hint === null ? "" : ` — ${line.hint}`;
      out.push(
        `  ${MARKS[line.mark]} ${line.subject.padEnd(subjectWidth)}  ` +
          `${line.check.padEnd(checkWidth)}  ${line.text}${hint}`,
      );
    }
  }
  const failed = lines.filter((line) => line.mark === "fail").length;
  const warned = lines.filter((line) => line.mark === "warn").length;
  out.push("");
  out.push(
    failed > 0
      ? `${failed} problem${failed === 1 ? "" : "s"} to fix (✗), ${warned} warning${
        warned === 1 ? "" : "s"
      } (!)`
      : `No problems (${warned} warning${warned === 1 ? "" : "s"})`,
  );
  return terminalSafe(out.join("\n"));
}
