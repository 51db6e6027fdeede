/**
 * The request a webhook channel sends (D31), pure: `json` posts the
 * notification as JSON; `ntfy` posts the body as text with `Title`, `Tags`,
 * `Priority` and `Click` headers; `slack` posts `{ "text" }`. No action that
 * calls back is ever included: a notification is a link, never an answer.
 */
import type { Notification } from "./content.ts";

/** A webhook's format (D31); `json` when the channel names none. */
export type WebhookFormat = "json" | "ntfy" | "slack";

/** What to POST. */
export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

/** ntfy priorities: what waits on the owner is high (4), the rest default (3). */
const NTFY_PRIORITY: Readonly<Record<string, string>> = {
  "approval.waiting": "4",
  "session.failed": "4",
  "session.stalled": "4",
};

/** The request of `format` for `notification`. */
export function webhookRequest(format: WebhookFormat, notification: Notification): WebhookRequest {
  switch (format) {
    case "json":
      return {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          event: notification.event,
          title: notification.title,
          body: notification.body,
          sessionId: notification.sessionId,
          harness: notification.harness,
          project: notification.project,
          url: notification.url,
          at: notification.at,
        }),
      };
    case "ntfy":
      return {
        headers: {
          "content-type": "text/plain; charset=utf-8",
          Title: headerText(notification.title),
          Tags: `svc,${notification.event}`,
          Priority: NTFY_PRIORITY[notification.event] ?? "3",
          ...(notification.url !== null && { Click: notification.url }),
        },
        body: notification.body || notification.title,
      };
    case "slack": {
      const lines = [`*${slackText(notification.title)}*`];
      if (notification.body !== "") lines.push(slackText(notification.body));
      if (notification.url !== null) lines.push(`<${notification.url}|Open in svc>`);
      return {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: lines.join("\n") }),
      };
    }
  }
}

/**
 * A header value: printable ASCII as is, anything else as an RFC 2047
 * encoded word (ntfy decodes `=?UTF-8?B?…?=`); HTTP headers carry no UTF-8.
 */
export function headerText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const bytes = new TextEncoder().encode(text);
  return `=?UTF-8?B?${btoa(String.fromCharCode(...bytes))}?=`;
}

/** Slack's three control characters escaped (its mrkdwn reads `<…>` as links and mentions). */
function slackText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
