/**
 * Each provider's limit answer as the recorded samples show it
 * (shared/spec/samples/limits/*.provider.jsonl), for the fake provider to
 * send instead of a reply. Each is the one that makes its pinned CLI give up
 * at once where the CLI allows it (docs/harnesses.md "Limits (D33)").
 */
import type { LimitAnswer } from "./fake_provider.ts";

/**
 * Anthropic's 429 of a subscription whose five-hour window is spent, as
 * recorded (claude_oauth_usagelimit_always): the unified rate-limit headers
 * say `rejected` and when the window resets (`resetS`, Unix seconds). A
 * claude logged in by OAuth answers it with a `rate_limit_event` carrying
 * `resetsAt` and an error result, without retrying.
 */
export function anthropicUsageLimit(resetS: number): { limit: LimitAnswer } {
  const reset = String(resetS);
  return {
    limit: {
      status: 429,
      headers: {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": reset,
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-fallback-percentage": "0.5",
        "anthropic-ratelimit-unified-5h-status": "rejected",
        "anthropic-ratelimit-unified-5h-reset": reset,
        "anthropic-ratelimit-unified-5h-utilization": "1.0",
        "anthropic-ratelimit-unified-7d-status": "allowed",
        "anthropic-ratelimit-unified-7d-reset": String(resetS + 3 * 86_400),
        "anthropic-ratelimit-unified-7d-utilization": "0.42",
        "anthropic-ratelimit-unified-overage-status": "rejected",
        "anthropic-ratelimit-unified-overage-disabled-reason": "org_level_disabled",
      },
      body: {
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "This request would exceed your account's rate limit. Please try again later.",
        },
        request_id: "req_fake_limit",
      },
    },
  };
}

/**
 * OpenAI's `usage_limit_reached` of a ChatGPT plan whose five-hour window is
 * spent, as recorded (codex_usagelimit_always): the `x-codex-*` headers give
 * each window's use and reset (`resetS`, Unix seconds, for the spent primary
 * window). Codex does not retry it: it reports the windows in
 * `account/rateLimits/updated` and fails the turn with `usageLimitExceeded`.
 */
export function codexUsageLimit(resetS: number, nowS: number): { limit: LimitAnswer } {
  const secondaryS = nowS + 300_000;
  return {
    limit: {
      status: 429,
      headers: {
        "retry-after": "20",
        "x-codex-primary-used-percent": "100",
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-after-seconds": String(resetS - nowS),
        "x-codex-primary-reset-at": String(resetS),
        "x-codex-secondary-used-percent": "40",
        "x-codex-secondary-window-minutes": "10080",
        "x-codex-secondary-reset-after-seconds": String(secondaryS - nowS),
        "x-codex-secondary-reset-at": String(secondaryS),
        "x-codex-primary-over-secondary-limit-percent": "0",
        "x-codex-credits-has-credits": "false",
        "x-codex-credits-unlimited": "false",
        "x-codex-credits-balance": "0",
      },
      body: {
        error: {
          type: "usage_limit_reached",
          message: "The usage limit has been reached",
          plan_type: "plus",
          resets_at: resetS,
          resets_in_seconds: resetS - nowS,
        },
      },
    },
  };
}

/**
 * The Gemini API's 429 for a spent daily free-tier quota, as recorded
 * (gemini_usagelimit_always): `RESOURCE_EXHAUSTED` with a `QuotaFailure`
 * naming a per-day quota. Gemini CLI does not retry it: `session/prompt`
 * fails at once with "You have exhausted your daily quota on this model."
 * (its `RetryInfo` delay is dropped, so no reset time reaches svc).
 */
export function geminiDailyQuota(): { limit: LimitAnswer } {
  const metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests";
  return {
    limit: {
      status: 429,
      headers: {},
      body: {
        error: {
          code: 429,
          message: "You exceeded your current quota, please check your plan and billing " +
            "details. For more information on this error, head to: " +
            "https://ai.google.dev/gemini-api/docs/rate-limits.\n" +
            `* Quota exceeded for metric: ${metric}, limit: 250, model: gemini-2.5-flash\n` +
            "Please retry in 30.5s.",
          status: "RESOURCE_EXHAUSTED",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [{
                quotaMetric: metric,
                quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
                quotaValue: "250",
              }],
            },
            {
              "@type": "type.googleapis.com/google.rpc.Help",
              links: [{
                description: "Learn more about Gemini API quotas",
                url: "https://ai.google.dev/gemini-api/docs/rate-limits",
              }],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" },
          ],
        },
      },
    },
  };
}

/**
 * OpenAI's 429 `insufficient_quota` (a spent plan or credit balance), as
 * recorded (opencode_usagelimit_always), without headers. opencode retries
 * every 429 (its backoff, ≈ 70 s over 6 tries), then fails `session/prompt`
 * with an `APIError` carrying this message: script one per try.
 */
export function openaiInsufficientQuota(): { limit: LimitAnswer } {
  return {
    limit: {
      status: 429,
      headers: {},
      body: {
        error: {
          message: "You exceeded your current quota, please check your plan and billing " +
            "details. For more information on this error, read the docs: " +
            "https://platform.openai.com/docs/guides/error-codes/api-errors.",
          type: "insufficient_quota",
          param: null,
          code: "insufficient_quota",
        },
      },
    },
  };
}
