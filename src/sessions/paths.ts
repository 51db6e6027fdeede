import { resolve, sep } from "node:path";
import { invalidRequest } from "../errors.ts";
import {
  absolutePathRequirement,
  type HostOs,
  isAbsoluteHostPath,
  isForeignAbsolutePath,
} from "../validate.ts";

/** True when `path` is `root` or lies below it (both already resolved). Pure. */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/** The project root and working directory of a launch, after realpath. */
export interface ResolvedPaths {
  projectRoot: string;
  cwd: string;
}

/**
 * Resolves a launch's `projectRoot` and `cwd` (D7): the root must be an
 * existing directory, absolute on the host `os` (issue 28 item 9), inside
 * one of `allowedRoots` when set (D3); `cwd` (default: the root; relative to
 * the root when relative) must be a directory that lies inside the root
 * after `..` and symlinks are resolved, and is never another system's
 * absolute path taken as relative (`C:/x` on Linux). Failures are 400
 * `invalid_request` naming the field.
 */
export async function resolveLaunchPaths(
  projectRoot: string,
  cwd: string | undefined,
  allowedRoots: readonly string[] | null,
  { os = Deno.build.os }: { os?: HostOs } = {},
): Promise<ResolvedPaths> {
  if (!isAbsoluteHostPath(projectRoot, os)) {
    throw invalidRequest(
      `Project root "${projectRoot}" is not an absolute path: ${absolutePathRequirement(os)}`,
      "projectRoot",
    );
  }
  if (cwd !== undefined && isForeignAbsolutePath(cwd, os)) {
    throw invalidRequest(
      `Working directory "${cwd}" is not an absolute path on this host: ${
        absolutePathRequirement(os)
      }, or a path relative to the project root`,
      "cwd",
    );
  }
  const root = await realDirectory(projectRoot, "projectRoot", "Project root");
  if (!await insideAllowedRoots(root, allowedRoots)) {
    throw invalidRequest(
      `Project root "${projectRoot}" is outside the configured project roots`,
      "projectRoot",
    );
  }
  if (cwd === undefined) return { projectRoot: root, cwd: root };
  const wanted = isAbsoluteHostPath(cwd, os) ? cwd : resolve(root, cwd);
  const real = await realDirectory(wanted, "cwd", "Working directory");
  if (!isInside(root, real)) {
    throw invalidRequest(`Working directory "${cwd}" is outside the project root`, "cwd");
  }
  return { projectRoot: root, cwd: real };
}

/**
 * True when the real path `path` lies inside one of `allowedRoots` (after
 * realpath; D3), or when no roots are configured (null).
 */
export async function insideAllowedRoots(
  path: string,
  allowedRoots: readonly string[] | null,
): Promise<boolean> {
  if (allowedRoots === null) return true;
  const allowed = await Promise.all(allowedRoots.map((dir) => realpathOrNull(dir)));
  return allowed.some((dir) => dir !== null && isInside(dir, path));
}

async function realDirectory(path: string, field: string, what: string): Promise<string> {
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch {
    throw invalidRequest(`${what} "${path}" does not exist or cannot be read`, field);
  }
  const info = await Deno.stat(real);
  if (!info.isDirectory) throw invalidRequest(`${what} "${path}" is not a directory`, field);
  return real;
}

async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}
