/**
 * What the screen says for a while: the footer's message (an action's
 * outcome, a refusal, held by the view state) and the banner of a restarted
 * daemon. Each goes at the next key (`ViewState.key`) or after `NOTICE_MS`
 * (issue 38 item 12: they never cleared).
 */
import { useEffect } from "react";
import type { Outcome } from "../actions.ts";
import type { Snapshot } from "../model.ts";
import type { UiStore } from "../store.ts";

/** How long a footer message or a restart banner stays when no key is pressed. */
export const NOTICE_MS = 8_000;

/** Clears `message` (through `clear`) and the restart banner after `NOTICE_MS`. */
export function useNotice(
  store: Pick<UiStore, "dismissBanner">,
  banner: Pick<Snapshot, "banner" | "connection">,
  message: Outcome | null,
  clear: () => void,
): void {
  useEffect(() => {
    if (message === null) return;
    const timer = setTimeout(clear, NOTICE_MS);
    return () => clearTimeout(timer);
  }, [message]);
  useEffect(() => {
    if (banner.banner === null || banner.connection !== "connected") return;
    const timer = setTimeout(() => store.dismissBanner(), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [banner.banner, banner.connection]);
}
