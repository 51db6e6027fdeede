/**
 * The notifications part of `svc doctor` (D31): whether the desktop channel's
 * program is found on this machine, and each channel's last delivery as the
 * running daemon reports it; a channel whose last delivery failed is a
 * problem. Pure: doctor.ts finds the program and asks the daemon.
 */
import type { NotificationsConfig } from "../notify/notification_config.ts";
import { channelLabel } from "../notify/notification_config.ts";
import type { NotificationChannelView } from "./doctor_home.ts";
import type { DoctorLine } from "./doctor_report.ts";

/** What doctor.ts found for the desktop channel: its program, and where (null: not found). */
export interface DesktopFacts {
  program: string;
  path: string | null;
}

/** The notification lines of the report. */
export function notificationLines(
  config: NotificationsConfig,
  desktop: DesktopFacts,
  daemon: NotificationChannelView[] | null,
): DoctorLine[] {
  const line = (subject: string, check: string, mark: DoctorLine["mark"], text: string) => ({
    section: "notifications" as const,
    subject,
    check,
    mark,
    text,
    hint: null as string | null,
  });
  const found = desktop.path === null
    ? {
      ...line("desktop", "program", "warn", `"${desktop.program}" is not on PATH`),
      hint: "a desktop channel would fail",
    }
    : line("desktop", "program", "ok", `${desktop.path}: desktop notifications work here`);
  if (config.channels.length === 0) {
    return [
      found,
      {
        ...line("channels", "config", "ok", "none configured"),
        hint: 'to be told when an agent needs you: config "notifications" (docs/configuration.md)',
      },
    ];
  }
  const lines: DoctorLine[] = [];
  if (config.channels.some((channel) => channel.kind === "desktop")) {
    lines.push(desktop.path === null ? { ...found, mark: "fail" } : found);
  }
  const seen = new Map((daemon ?? []).map((view) => [view.channel, view]));
  config.channels.forEach((channel, index) => {
    const label = channelLabel(channel, index);
    const last = seen.get(label)?.last ?? null;
    if (daemon === null) {
      lines.push(line(label, "delivery", "ok", "configured (no daemon answers: nothing sent yet)"));
    } else if (last === null) {
      lines.push(line(label, "delivery", "ok", "nothing sent since the daemon started"));
    } else if (last.status === "sent") {
      lines.push(line(label, "delivery", "ok", `last sent at ${last.at}`));
    } else {
      lines.push({
        ...line(label, "delivery", "fail", `last ${last.status} at ${last.at}: ${last.error}`),
        hint: `svc notifications test --channel ${index + 1}; svc notifications log`,
      });
    }
  });
  return lines;
}
