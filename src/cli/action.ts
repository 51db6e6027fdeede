import type { ClientResponse, SvcClient } from "../client/client.ts";

/** A successful action answer: the versioned `result` (C4.1). */
export interface ActionAnswer<T> {
  ok: true;
  result: T;
}

/** Posts action `action` with `fields` (origin `cli`). */
export function act<T>(
  client: SvcClient,
  action: string,
  fields: Record<string, unknown>,
): Promise<ClientResponse<ActionAnswer<T>>> {
  return client.post<ActionAnswer<T>>("/actions", { action, origin: "cli", ...fields });
}
