/// <reference lib="dom" />
/**
 * The web app's entry (D30): one runtime over the page's own origin, and the
 * views rendered from it. Bundled by scripts/web_build.ts into web/dist/.
 */
import { createRoot } from "react-dom/client";
import { App } from "./components/app.tsx";
import { WebRuntime } from "./web_runtime.ts";

const runtime = new WebRuntime({
  fetch: (input, init) => globalThis.fetch(input, init),
  address: {
    read: () => ({ pathname: location.pathname, hash: location.hash }),
    replace: (url) => history.replaceState(null, "", url),
  },
});
createRoot(document.getElementById("app")!).render(<App runtime={runtime} />);
void runtime.start();
addEventListener("pagehide", () => runtime.stop());
