/**
 * The daemon's build identity (`svcVersion`, C2.5): `git describe --tags
 * --dirty --always`, stamped into this file by `scripts/stamp_version.ts`
 * before a release build. Running from source it stays `unknown`.
 */
export const SVC_VERSION: string = "unknown";

/** The contract this daemon serves (C1, C9). */
export const API_VERSION = "svc.daemon.v1";

/** The session-policy contract listed over local IPC (C2.5, C9.5). */
export const SESSION_POLICY_CONTRACT = "svc.session-policy.v1";
