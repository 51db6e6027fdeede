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
  type Health,
  MAX_RESPONSE_BYTES,
  SvcClient,
} from "./src/client/client.ts";
