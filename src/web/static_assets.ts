/**
 * The web app's files (D30), its script built from the repo into `web/dist/`,
 * embedded in svc (embedded_app.ts), served at `/` with no CDN. Without an
 * app, `/` is a 404 that says so; nothing else stands in for it.
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

/** A fixed set of files, by relative path. */
export function fileAssets(files: Record<string, Uint8Array<ArrayBuffer>>): StaticAssets {
  const assets = new Map(
    Object.entries(files).map((
      [path, bytes],
    ) => [path, { bytes, contentType: contentTypeOf(path) }]),
  );
  return { read: (path) => Promise.resolve(assets.get(path) ?? null) };
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
        "The web app is not built into this svc: its page is missing",
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
