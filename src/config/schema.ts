import { z } from "zod";
import { boundedText } from "../api/validate.ts";

const HARNESS_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const absolutePath = z.string().refine(
  (path) => path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path),
  "must be an absolute path",
);

const harnessSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1),
  prompt: z.enum(["arg", "stdin", "none"]),
  label: boundedText(1, 160).optional(),
});

/** `$SVC_HOME/config.json` (D3): every key optional, unknown keys rejected. */
export const configSchema = z.strictObject({
  projectRoots: z.array(absolutePath).optional(),
  harnesses: z.record(
    z.string().regex(HARNESS_ID, "must match [a-z0-9][a-z0-9._-]{0,63}"),
    harnessSchema,
  ).optional(),
  rawArtifacts: z.boolean().optional(),
  maxLiveSessions: z.int().min(1).max(10_000).optional(),
});

/** The daemon's configuration with defaults applied. */
export interface Config {
  projectRoots: string[] | null;
  harnesses: Record<string, z.output<typeof harnessSchema>>;
  rawArtifacts: boolean;
  maxLiveSessions: number;
}

/** Defaults for a home without `config.json`. */
export const DEFAULT_CONFIG: Config = {
  projectRoots: null,
  harnesses: {},
  rawArtifacts: false,
  maxLiveSessions: 64,
};
