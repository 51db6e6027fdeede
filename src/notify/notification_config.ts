/**
 * `notifications` of config.json (D31): where svc tells its owner that an
 * agent needs them, and about what. A channel is a desktop notification, a
 * webhook (json, ntfy or slack) or a command; each may name the events it
 * wants. Webhook URLs and commands are secrets of the config: they are never
 * logged nor served, a channel is shown by its `label`.
 */
import { z } from "zod";
import { boundedText } from "../validate.ts";

/** What svc notifies about (D31; `session.parked` from D33, `land.finished` from D34). */
export const NOTIFICATION_EVENTS = [
  "approval.waiting",
  "turn.finished",
  "session.failed",
  "session.stalled",
  "session.parked",
  "routine.result",
  "land.finished",
] as const;
export type NotificationEvent = typeof NOTIFICATION_EVENTS[number];

/** Seconds a permission request waits unanswered before it is notified, by default. */
export const DEFAULT_AFTER_SECONDS = 20;

const name = boundedText(1, 64).optional();
const events = z.array(z.enum(NOTIFICATION_EVENTS)).min(1).optional();

const webhookUrl = z.string().max(4096).refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}, "must be an http or https URL");

const channelSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("desktop"), name, events }),
  z.strictObject({
    kind: z.literal("webhook"),
    url: webhookUrl,
    format: z.enum(["json", "ntfy", "slack"]).optional(),
    name,
    events,
  }),
  z.strictObject({
    kind: z.literal("command"),
    command: z.array(z.string().min(1)).min(1),
    name,
    events,
  }),
]);

/** The schema of `notifications` in config.json. */
export const notificationsSchema = z.strictObject({
  channels: z.array(channelSchema).max(32),
  afterSeconds: z.number().min(0).max(86_400).optional(),
});

/** One channel as configured. */
export type ChannelConfig = z.output<typeof channelSchema>;

/** `notifications` with its defaults applied. */
export interface NotificationsConfig {
  channels: ChannelConfig[];
  afterSeconds: number;
}

/** How a channel is named in logs, answers and `--channel`: its `name`, else `#N kind`. */
export function channelLabel(channel: ChannelConfig, index: number): string {
  return channel.name ?? `#${index + 1} ${channel.kind}`;
}

/** Whether `channel` wants `event`: its `events`, else every event but `turn.finished`. */
export function channelWants(channel: ChannelConfig, event: NotificationEvent): boolean {
  return channel.events?.includes(event) ?? event !== "turn.finished";
}
