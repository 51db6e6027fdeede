import type { SvcClient } from "../client/client.ts";
import type { StoredRoutine } from "../automations/definition.ts";
import type { ClientResponse } from "../client/client.ts";
import { act, type ActionAnswer } from "./action.ts";

type Page = { routines: StoredRoutine[]; nextCursor: string | null };

/**
 * Every routine, following `svc.automations.list` pages; the first refusal
 * is returned as is (its body is the error envelope).
 */
export async function allRoutines(
  client: SvcClient,
): Promise<ClientResponse<ActionAnswer<Page>>> {
  let response = await act<Page>(client, "svc.automations.list", { limit: 1000 });
  const routines: StoredRoutine[] = [];
  for (;;) {
    if (!response.ok) return response;
    routines.push(...response.body.result.routines);
    const cursor = response.body.result.nextCursor;
    if (cursor === null) break;
    response = await act<Page>(client, "svc.automations.list", { limit: 1000, cursor });
  }
  response.body.result = { routines, nextCursor: null };
  return response;
}
