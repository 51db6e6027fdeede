/**
 * The first-party client of svc, for other Deno programs:
 * `import { SvcClient } from "<svc>/client.ts"`.
 */
export {
  ClientError,
  type ClientErrorCode,
  type ClientOptions,
  type ClientResponse,
  type ClientTarget,
  type FeedItem,
  type FeedStreamOptions,
  type Health,
  MAX_RESPONSE_BYTES,
  type ReconnectOptions,
  type SessionStreamOptions,
  type StreamOpening,
  StreamRefused,
  SvcClient,
} from "./src/client/client.ts";
