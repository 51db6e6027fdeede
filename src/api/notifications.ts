import { z } from "zod";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import type { Route } from "./route.ts";
import { errorDoc } from "./schemas.ts";
import { readJsonBody } from "../policy/body.ts";
import { invalidRequest } from "../errors.ts";
import { parseInput } from "../validate.ts";
import type { LabelledChannel } from "../notify/delivery.ts";
import type { NotificationLog } from "../notify/notification_log.ts";
import type { NotificationLogEntry } from "../notify/notification_log.ts";
import { NOTIFICATION_EVENTS } from "../notify/notification_config.ts";

/** What the notification routes need (D31). */
export interface NotificationDeps {
  /** The configured channels, each by its label (never its URL or command). */
  readonly channels: () => readonly LabelledChannel[];
  readonly log: NotificationLog;
  /** Sends a test notification to `channels` now; how each went. */
  readonly test: (channels: readonly LabelledChannel[]) => Promise<NotificationLogEntry[]>;
}

const MAX_LIMIT = 500;

function logEntrySchema() {
  return z.object({
    at: z.string(),
    event: z.string().describe("A D31 event, or `test`"),
    sessionId: z.string().nullable(),
    channel: z.string().describe("The channel's name, else `#N kind`"),
    status: z.enum(["sent", "failed", "dropped"]),
    error: z.string().nullable(),
    attempts: z.int(),
    title: z.string(),
  });
}

function channelSchema() {
  return z.object({
    channel: z.string(),
    kind: z.enum(["desktop", "webhook", "command"]),
    format: z.enum(["json", "ntfy", "slack"]).nullable().describe("Webhooks only"),
    events: z.array(z.enum(NOTIFICATION_EVENTS)),
    last: z.object({
      status: z.enum(["sent", "failed", "dropped"]),
      at: z.string(),
      error: z.string().nullable(),
    }).nullable().describe("The channel's last delivery since the daemon started"),
  });
}

const testBody = z.strictObject({
  channel: z.string().min(1).max(64).optional().describe("A channel's name or 1-based index"),
});

/**
 * `GET /notifications` (the channels, secrets left out, and the recent
 * deliveries) and `POST /notifications/test` (owner only: it makes svc send).
 */
export function notificationRoutes(deps: NotificationDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/notifications",
      summary: "The notification channels and the recent deliveries, newest first (D31)",
      operationId: "listNotifications",
      tag: "notifications",
      query: z.object({
        limit: z.int().min(1).max(MAX_LIMIT).optional().describe("Clamped; default 100"),
      }),
      responses: {
        200: {
          description: "Channels (no URL, no command) and log entries",
          schema: () =>
            z.object({ channels: z.array(channelSchema()), entries: z.array(logEntrySchema()) }),
        },
        400: errorDoc("A bad query parameter"),
      },
      handler: ({ url }) => {
        const limit = integerParam(url, "limit", { min: 1, max: MAX_LIMIT }) ?? 100;
        const last = new Map(deps.log.channels().map((health) => [health.channel, health]));
        return jsonResponse({
          channels: deps.channels().map(({ channel, label }) => {
            const health = last.get(label);
            return {
              channel: label,
              kind: channel.kind,
              format: channel.kind === "webhook" ? channel.format ?? "json" : null,
              events: channel.events ??
                NOTIFICATION_EVENTS.filter((event) => event !== "turn.finished"),
              last: health === undefined
                ? null
                : { status: health.status, at: health.at, error: health.error },
            };
          }),
          entries: deps.log.list(limit),
        });
      },
    },
    {
      method: "POST",
      path: "/notifications/test",
      summary: "Sends a test notification to one channel or all, and says how each went (D31)",
      operationId: "testNotifications",
      tag: "notifications",
      ownerOnly: "Sending a test notification",
      body: testBody,
      responses: {
        200: {
          description: "One entry per channel tried",
          schema: () => z.object({ results: z.array(logEntrySchema()) }),
        },
        400: errorDoc("`invalid_request`: no such channel, or none configured"),
      },
      handler: async ({ req }) => {
        const request = parseInput(testBody, await readJsonBody(req));
        const channels = deps.channels();
        if (channels.length === 0) {
          throw invalidRequest('No notification channel is configured (config "notifications")');
        }
        const chosen = request.channel === undefined
          ? channels
          : channels.filter((target, index) =>
            target.label === request.channel || String(index + 1) === request.channel
          );
        if (chosen.length === 0) {
          throw invalidRequest(
            `No notification channel "${request.channel}": use a name or an index from 1 to ${channels.length}`,
            "channel",
          );
        }
        return jsonResponse({ results: await deps.test(chosen) });
      },
    },
  ];
}
