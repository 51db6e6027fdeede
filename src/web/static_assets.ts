/**
 * The web app's files (D30): one directory built from the repo (`web/dist/`,
 * beside the program, `--include`d into a compiled binary), served at `/`
 * with no CDN. Without a built app, `/` is a 404 that says so; nothing else
 * stands in for it.
 */
import { ServiceError } from "../errors.ts";

/** One file of the app. */
export interface Asset {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
}

/** Where the app's files come from: a directory in production, a fake in tests. */
export interface StaticAssets {
  /** The file at a relative path (`index.html`, `assets/app.js`), or null. */
  read(path: string): Promise<Asset | null>;
}

/** The directory of the built app, next to the source tree (and the compiled binary's include). */
export const WEB_DIST = new URL("../../web/dist/", import.meta.url);

/** Paths the app's page answers itself (it reads the route from the fragment). */
const PAGE_PATHS = new Set(["/", "/pair"]);

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  webmanifest: "application/manifest+json",
  map: "application/json; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  woff2: "font/woff2",
  txt: "text/plain; charset=utf-8",
};

/** The files under `root` (a directory URL), read once each and kept. */
export function directoryAssets(root: URL): StaticAssets {
  const cache = new Map<string, Promise<Asset | null>>();
  return {
    read(path) {
      let found = cache.get(path);
      if (found === undefined) {
        found = Deno.readFile(new URL(path, root)).then(
          (bytes) => ({ bytes, contentType: contentTypeOf(path) }),
          (error) => {
            if (
              error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory
            ) {
              return null;
            }
            throw error;
          },
        );
        cache.set(path, found);
      }
      return found;
    },
  };
}

/**
 * The answer to `GET`/`HEAD pathname` outside `/api/`: the app's page at
 * `/` and `/pair`, its files elsewhere. A missing page is 404
 * `web_app_not_built`, a missing file 404 `not_found`, another method 405.
 */
export async function staticResponse(req: Request, pathname: string, assets: StaticAssets) {
  if (req.method !== "GET" && req.method !== "HEAD") {
    throw new ServiceError(
      "method_not_allowed",
      405,
      `Method ${req.method} is not allowed on "${pathname}": use GET, HEAD`,
    );
  }
  const path = PAGE_PATHS.has(pathname) ? "index.html" : relativePath(pathname);
  const asset = path === null ? null : await assets.read(path);
  if (asset === null) {
    if (path === "index.html") {
      throw new ServiceError(
        "web_app_not_built",
        404,
        "The web app is not built into this svc: web/dist/index.html is missing",
      );
    }
    throw new ServiceError("not_found", 404, `No file for "${pathname}"`);
  }
  const headers = {
    "content-type": asset.contentType,
    "content-length": String(asset.bytes.byteLength),
  };
  return new Response(req.method === "HEAD" ? null : asset.bytes, { headers });
}

/** `/assets/app.js` → `assets/app.js`; null for anything that could leave the directory. */
function relativePath(pathname: string): string | null {
  const segments = pathname.slice(1).split("/");
  for (const segment of segments) {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(segment) || segment.includes("..")) return null;
  }
  return segments.join("/");
}

function contentTypeOf(path: string): string {
  const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  return TYPES[extension] ?? "application/octet-stream";
}
