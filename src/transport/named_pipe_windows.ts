import { createHash } from "node:crypto";
import type { Handler } from "../api/app.ts";
import { ConfigError } from "../config/config_error.ts";
import { PIPE_PEER } from "../policy/peer.ts";
import { MAX_BODY_BYTES } from "../policy/body.ts";
import type { Listener } from "./listener.ts";
import { type ByteDuplex, DEFAULT_TIMEOUTS, serveHttp1Connection } from "./http1_connection.ts";
import { DEFAULT_LIMITS, TOO_MANY_CONNECTIONS } from "./http1_errors.ts";
import { framingErrorResponse } from "./http1_response.ts";

/*
 * The Windows named pipe of D15, owner-only and fail-closed (docs/windows.md).
 *
 * Every instance of the pipe is created here through FFI with an explicit
 * security descriptor: owner = the current user, DACL = the current user and
 * SYSTEM, network logons denied; the first one with
 * FILE_FLAG_FIRST_PIPE_INSTANCE so a name squatted by another process is an
 * error, and PIPE_REJECT_REMOTE_CLIENTS. If any of that fails the daemon
 * refuses to start (ConfigError, exit 2); there is no fallback pipe.
 *
 * Handles are synchronous; each blocking call (ConnectNamedPipe, ReadFile,
 * WriteFile, FlushFileBuffers) is declared `nonblocking` so Deno runs it on a
 * worker thread, and is cancelled with CancelIoEx, which reaches I/O issued by
 * any thread. GetLastError is only used for error messages: read through FFI
 * after the fact it may be stale, so no decision depends on it.
 *
 * FFI is opened only inside `openWin32PipeSystem()`, which runs only on
 * Windows; everything else in this file is pure and tested on every OS.
 */

/** `\\.\pipe\svc-`: the prefix of every svc pipe name (D15). */
export const PIPE_NAME_PREFIX = "\\\\.\\pipe\\svc-";

/** `\\.\pipe\svc-<first 16 hex of sha256(home)>`, hashing the UTF-8 bytes of `home` as given (D15). */
export function pipeNameFor(home: string): string {
  const hex = createHash("sha256").update(home, "utf8").digest("hex");
  return PIPE_NAME_PREFIX + hex.slice(0, 16);
}

/** Whether `name` is a local pipe name svc would create. */
export function isSvcPipeName(name: string): boolean {
  return /^\\\\\.\\pipe\\svc-[0-9a-f]{16}$/.test(name);
}

// Documented Win32 constants (winbase.h, winnt.h, sddl.h).
/** The pipe is bi-directional. */
export const PIPE_ACCESS_DUPLEX = 0x00000003;
/** Creation fails with ERROR_ACCESS_DENIED if any instance of the name already exists. */
export const FILE_FLAG_FIRST_PIPE_INSTANCE = 0x00080000;
export const PIPE_TYPE_BYTE = 0x00000000;
export const PIPE_READMODE_BYTE = 0x00000000;
export const PIPE_WAIT = 0x00000000;
/** Connections from other machines (SMB) are refused by the pipe itself. */
export const PIPE_REJECT_REMOTE_CLIENTS = 0x00000008;
export const PIPE_UNLIMITED_INSTANCES = 255;
export const SDDL_REVISION_1 = 1;
export const TOKEN_QUERY = 0x0008;
/** TOKEN_INFORMATION_CLASS value of TokenUser. */
export const TOKEN_USER_CLASS = 1;
/** (HANDLE)-1 as an unsigned 64-bit address. */
export const INVALID_HANDLE_VALUE = 0xffff_ffff_ffff_ffffn;
/** sizeof(SECURITY_ATTRIBUTES) on 64-bit Windows (x64 and arm64). */
export const SECURITY_ATTRIBUTES_SIZE = 24;
/** ERROR_ACCESS_DENIED: what a FIRST_PIPE_INSTANCE creation of an existing name returns. */
export const ERROR_ACCESS_DENIED = 5;

/** dwOpenMode: duplex, synchronous, and FIRST_PIPE_INSTANCE for the first instance only. */
export function pipeOpenMode(first: boolean): number {
  return PIPE_ACCESS_DUPLEX | (first ? FILE_FLAG_FIRST_PIPE_INSTANCE : 0);
}

/** dwPipeMode: a blocking byte stream that refuses remote clients. */
export const PIPE_MODE = PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
  PIPE_REJECT_REMOTE_CLIENTS;

/** Bytes of each instance's in and out buffers (a size hint to the pipe driver). */
export const PIPE_BUFFER_BYTES = 64 * 1024;

/** Whether `sid` is a string SID (`S-1-5-21-…`), the only thing interpolated into the SDDL. */
export function isSidString(sid: string): boolean {
  return /^S-1-\d+(-\d+)+$/.test(sid);
}

/**
 * The pipe's security descriptor in SDDL: owner `userSid`; a protected DACL
 * (`P`: nothing inherited) that denies network logons (`NU`), then grants
 * GENERIC_ALL to `userSid` and to LocalSystem (`SY`), and nothing to anyone
 * else — no Everyone, no anonymous, no Administrators, no Users.
 *
 * The user's SID is used rather than `OW` (OWNER RIGHTS): without an explicit
 * owner, a pipe created by an elevated administrator is owned by the
 * Administrators group, so `OW` would mean "any elevated admin" and would
 * lock out the same user's unelevated clients.
 */
export function ownerOnlySddl(userSid: string): string {
  if (!isSidString(userSid)) throw new Error(`"${userSid}" is not a SID string`);
  return `O:${userSid}D:P(D;;GA;;;NU)(A;;GA;;;${userSid})(A;;GA;;;SY)`;
}

/**
 * A SECURITY_ATTRIBUTES struct for 64-bit Windows: `nLength` (u32) at 0,
 * padding, `lpSecurityDescriptor` (pointer) at 8, `bInheritHandle` (BOOL) at
 * 16 = FALSE, padding to 24.
 */
export function securityAttributesBuffer(securityDescriptor: bigint): Uint8Array<ArrayBuffer> {
  if (securityDescriptor === 0n) throw new Error("A null security descriptor would mean no DACL");
  const buffer = new Uint8Array(SECURITY_ATTRIBUTES_SIZE);
  const view = new DataView(buffer.buffer);
  view.setUint32(0, SECURITY_ATTRIBUTES_SIZE, true);
  view.setBigUint64(8, securityDescriptor, true);
  view.setInt32(16, 0, true);
  return buffer;
}

/** The descriptor address stored in a SECURITY_ATTRIBUTES buffer (0n for a null one). */
export function securityDescriptorOf(attributes: Uint8Array): bigint {
  if (attributes.byteLength !== SECURITY_ATTRIBUTES_SIZE) return 0n;
  return new DataView(attributes.buffer, attributes.byteOffset).getBigUint64(8, true);
}

/** `text` as a NUL-terminated UTF-16 string (LPCWSTR; Windows is little-endian). */
export function utf16z(text: string): Uint16Array<ArrayBuffer> {
  const units = new Uint16Array(text.length + 1);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

/** Reads a NUL-terminated UTF-16 string unit by unit, at most `maxUnits` long. */
export function decodeUtf16z(unitAt: (index: number) => number, maxUnits = 1024): string {
  const units: number[] = [];
  for (let i = 0; i < maxUnits; i++) {
    const unit = unitAt(i);
    if (unit === 0) return String.fromCharCode(...units);
    units.push(unit);
  }
  throw new Error(`String is not terminated within ${maxUnits} UTF-16 units`);
}

/** The SID address in a TOKEN_USER buffer: `User.Sid`, the pointer at offset 0. */
export function tokenUserSidAddress(tokenUser: Uint8Array): bigint {
  return new DataView(tokenUser.buffer, tokenUser.byteOffset).getBigUint64(0, true);
}

/** Whether a returned handle value is INVALID_HANDLE_VALUE (or NULL). */
export function isInvalidHandleValue(value: bigint): boolean {
  return value === INVALID_HANDLE_VALUE || value === 0n;
}

/** A CreateNamedPipeW failure, with GetLastError's value when it could be read (best effort). */
export class PipeCreateError extends Error {
  readonly win32Code: number | null;

  constructor(win32Code: number | null) {
    super(`CreateNamedPipeW failed${win32Code ? ` (Windows error ${win32Code})` : ""}`);
    this.name = "PipeCreateError";
    this.win32Code = win32Code;
  }
}

/** The exit-2 message when the first instance of `name` cannot be created. */
export function describeCreateFailure(name: string, win32Code: number | null): string {
  const reason = win32Code === ERROR_ACCESS_DENIED
    ? "the name is already in use (another svc daemon on this home, or another program holding it)"
    : win32Code
    ? `Windows error ${win32Code}`
    : "no error code available";
  return `Cannot create the owner-only named pipe "${name}": ${reason}; refusing to serve it`;
}

/**
 * The Win32 calls the pipe server needs, with `Handle` the OS handle type.
 * One real implementation (FFI, Windows only) and fakes in tests.
 */
export interface PipeSystem<Handle> {
  /** The string SID of the user this process runs as. */
  currentUserSid(): string;
  /** Converts SDDL into a SECURITY_ATTRIBUTES buffer; `release()` frees the descriptor. */
  securityAttributes(sddl: string): { attributes: Uint8Array; release(): void };
  /** CreateNamedPipeW; throws `PipeCreateError`. */
  createInstance(name: string, openMode: number, pipeMode: number, attributes: Uint8Array): Handle;
  /** ConnectNamedPipe: true once a client is connected, false when it failed or was cancelled. */
  connect(handle: Handle): Promise<boolean>;
  /** ReadFile: the byte count, or `null` when the client is gone or the read was cancelled. */
  read(handle: Handle, into: Uint8Array): Promise<number | null>;
  /** WriteFile of all `bytes`: false when the client is gone or the write was cancelled. */
  write(handle: Handle, bytes: Uint8Array): Promise<boolean>;
  /** FlushFileBuffers: waits until the client has read everything written. */
  flush(handle: Handle): Promise<boolean>;
  /** CancelIoEx(handle, NULL): cancels the handle's pending I/O, issued by any thread. */
  cancel(handle: Handle): void;
  disconnect(handle: Handle): void;
  close(handle: Handle): void;
}

/** Options of `listenNamedPipe`. */
export interface NamedPipeOptions<Handle> extends PipeServerSettings {
  /** The Win32 calls (default: FFI, Windows only); tests hand in a fake. */
  system?: PipeSystem<Handle>;
}

/** Tuning of the pipe server. */
export interface PipeServerSettings {
  /** Connections served at once; one more is answered 503 and closed (default 64). */
  maxConnections?: number;
  /** A read that brings nothing for this long ends its connection (default 30 s). */
  readTimeoutMs?: number;
  /** After this long, shutdown cancels in-flight writes too (default 5 s). */
  shutdownGraceMs?: number;
  /** Fields every refusal of the server itself carries (`Svc-Instance`, D5). */
  responseHeaders?: Record<string, string>;
}

/**
 * Serves `handler` on the named pipe `name` as the owner (PIPE_PEER), every
 * instance owner-only (see `ownerOnlySddl`). Throws `ConfigError` — and
 * serves nothing — when not on Windows, when FFI is unavailable (the build
 * lacks `--allow-ffi`), or when the descriptor or the first instance cannot
 * be created, including when the name already exists.
 */
// deno-lint-ignore require-await
export async function listenNamedPipe<Handle = Deno.PointerObject>(
  name: string,
  handler: Handler,
  options: NamedPipeOptions<Handle> = {},
): Promise<Listener> {
  if (options.system) return startPipeServer(name, handler, options.system, options);
  return startPipeServer(name, handler, openWin32PipeSystem(name), options);
}

/** Makes a pending operation give up: cancels until `stillPending()` turns false, bounded. */
export async function cancelUntilSettled(
  cancel: () => void,
  operation: Promise<unknown>,
  stillPending: () => boolean,
  options: { intervalMs?: number; attempts?: number } = {},
): Promise<void> {
  const settled = operation.then(() => {}, () => {});
  for (let i = 0; i < (options.attempts ?? 250) && stillPending(); i++) {
    // Repeated because a cancel that lands before the worker thread enters the call finds nothing.
    cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      settled,
      new Promise((r) => timer = setTimeout(r, options.intervalMs ?? 20)),
    ]);
    clearTimeout(timer);
  }
}

function startPipeServer<Handle>(
  name: string,
  handler: Handler,
  system: PipeSystem<Handle>,
  options: PipeServerSettings,
): Listener {
  if (!isSvcPipeName(name)) {
    throw new ConfigError(`"${name}" is not an svc pipe name (${PIPE_NAME_PREFIX}<16 hex>)`);
  }
  const refuse = (what: string, error: unknown) =>
    new ConfigError(
      `Cannot secure the named pipe "${name}": ${what} (${
        (error as Error).message
      }); refusing to serve it`,
    );
  let sddl: string;
  try {
    sddl = ownerOnlySddl(system.currentUserSid());
  } catch (error) {
    throw refuse("reading the current user's SID failed", error);
  }
  let security: { attributes: Uint8Array; release(): void };
  try {
    security = system.securityAttributes(sddl);
  } catch (error) {
    throw refuse("building its security descriptor failed", error);
  }
  if (securityDescriptorOf(security.attributes) === 0n) {
    security.release();
    throw refuse("the security descriptor is null", new Error("no DACL"));
  }
  let first: Handle;
  try {
    first = system.createInstance(name, pipeOpenMode(true), PIPE_MODE, security.attributes);
  } catch (error) {
    security.release();
    throw new ConfigError(
      describeCreateFailure(name, error instanceof PipeCreateError ? error.win32Code : null),
    );
  }
  return new PipeServer(name, handler, system, security, first, options).listener();
}

/** One connected pipe instance as a `ByteDuplex`, tracking its pending call so it can be cancelled. */
class PipeConnection<Handle> implements ByteDuplex {
  readonly handle: Handle;
  readonly #system: PipeSystem<Handle>;
  #pending: { operation: Promise<unknown>; kind: "read" | "other" } | null = null;

  constructor(system: PipeSystem<Handle>, handle: Handle) {
    this.#system = system;
    this.handle = handle;
  }

  async #track<T>(kind: "read" | "other", operation: Promise<T>): Promise<T> {
    const pending = { operation, kind };
    this.#pending = pending;
    try {
      return await operation;
    } finally {
      if (this.#pending === pending) this.#pending = null;
    }
  }

  /** Waits for a client on this (listening) instance. */
  accept(): Promise<boolean> {
    return this.#track("other", this.#system.connect(this.handle));
  }

  async read(into: Uint8Array): Promise<number | null> {
    // A zero-byte read is a zero-length write by the client, not the end; a few are tolerated.
    for (let empty = 0; empty < 16; empty++) {
      const count = await this.#track("read", this.#system.read(this.handle, into));
      if (count === null || count > 0) return count;
    }
    return null;
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (!await this.#track("other", this.#system.write(this.handle, bytes))) {
      throw new Error("The pipe client is gone");
    }
  }

  flush(): Promise<boolean> {
    return this.#track("other", this.#system.flush(this.handle));
  }

  cancelRead(): void {
    if (this.#pending?.kind === "read") this.abort();
  }

  /** Cancels whatever call is pending on this instance. */
  abort(): void {
    const pending = this.#pending;
    if (!pending) return;
    void cancelUntilSettled(
      () => this.#system.cancel(this.handle),
      pending.operation,
      () => this.#pending === pending,
    );
  }
}

/** The accept loop and the live connections of one pipe name. */
class PipeServer<Handle> {
  readonly #name: string;
  readonly #handler: Handler;
  readonly #system: PipeSystem<Handle>;
  readonly #security: { attributes: Uint8Array; release(): void };
  readonly #options: PipeServerSettings;
  readonly #connections = new Set<PipeConnection<Handle>>();
  readonly #tasks = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  #listening: PipeConnection<Handle>;
  #acceptLoop: Promise<void> | null = null;
  #shutdown: Promise<void> | null = null;

  constructor(
    name: string,
    handler: Handler,
    system: PipeSystem<Handle>,
    security: { attributes: Uint8Array; release(): void },
    first: Handle,
    options: PipeServerSettings,
  ) {
    this.#name = name;
    this.#handler = handler;
    this.#system = system;
    this.#security = security;
    this.#options = options;
    this.#listening = new PipeConnection(system, first);
  }

  listener(): Listener {
    // #accept catches what it expects; anything else must not become an unhandled rejection.
    this.#acceptLoop = this.#accept().catch(() => {});
    return { address: this.#name, shutdown: () => this.#shutdown ??= this.#stopServing() };
  }

  get #stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Always holds one listening instance, so the name never disappears while
   * serving (a vanished name could be re-created by another process with its
   * own DACL). Every further instance is created with the same owner-only
   * attributes; if one cannot be created, the client that just connected is
   * dropped and its instance listens again.
   */
  async #accept(): Promise<void> {
    while (!this.#stopping) {
      const listening = this.#listening;
      const connected = await listening.accept().catch(() => false);
      if (this.#stopping) break;
      if (!connected) await this.#sleep(10); // ERROR_PIPE_CONNECTED or a client already gone
      if (this.#stopping) break;
      let next: Handle;
      try {
        next = this.#system.createInstance(
          this.#name,
          pipeOpenMode(false),
          PIPE_MODE,
          this.#security.attributes,
        );
      } catch {
        this.#system.disconnect(listening.handle);
        await this.#sleep(1000);
        continue;
      }
      this.#listening = new PipeConnection(this.#system, next);
      const task = this.#serve(listening);
      this.#tasks.add(task);
      void task.catch(() => {}).finally(() => this.#tasks.delete(task));
    }
    this.#system.disconnect(this.#listening.handle);
    this.#system.close(this.#listening.handle);
  }

  async #serve(conn: PipeConnection<Handle>): Promise<void> {
    this.#connections.add(conn);
    try {
      if (this.#connections.size > (this.#options.maxConnections ?? 64)) {
        await conn.write(
          framingErrorResponse(TOO_MANY_CONNECTIONS, undefined, this.#options.responseHeaders),
        ).catch(() => {});
        return;
      }
      // A handler that throws is answered 500 internal_error by the framing.
      await serveHttp1Connection(conn, (req) => this.#handler(req, PIPE_PEER), {
        limits: { ...DEFAULT_LIMITS, maxBodyBytes: MAX_BODY_BYTES },
        ...(this.#options.readTimeoutMs === undefined ? {} : {
          timeouts: { ...DEFAULT_TIMEOUTS, idleMs: this.#options.readTimeoutMs },
        }),
        isStopping: () => this.#stopping,
        responseHeaders: this.#options.responseHeaders,
      });
    } finally {
      this.#connections.delete(conn);
      // Unread response bytes are discarded by DisconnectNamedPipe: wait for the client first.
      const guard = setTimeout(() => conn.abort(), 2000);
      await conn.flush().catch(() => false);
      clearTimeout(guard);
      try {
        this.#system.disconnect(conn.handle);
      } finally {
        this.#system.close(conn.handle);
      }
    }
  }

  async #stopServing(): Promise<void> {
    this.#stop.abort();
    this.#listening.abort();
    for (const conn of this.#connections) conn.cancelRead();
    const grace = setTimeout(() => {
      for (const conn of this.#connections) conn.abort();
    }, this.#options.shutdownGraceMs ?? 5000);
    await this.#acceptLoop;
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks]);
    clearTimeout(grace);
    this.#security.release();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.#stop.signal;
      signal.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    });
  }
}

// ---------------------------------------------------------------------------
// The FFI binding: loaded only by `openWin32PipeSystem()`, only on Windows.

const KERNEL32 = {
  CreateNamedPipeW: {
    parameters: ["buffer", "u32", "u32", "u32", "u32", "u32", "u32", "buffer"],
    result: "pointer",
  },
  ConnectNamedPipe: { parameters: ["pointer", "pointer"], result: "i32", nonblocking: true },
  ReadFile: {
    parameters: ["pointer", "buffer", "u32", "buffer", "pointer"],
    result: "i32",
    nonblocking: true,
  },
  WriteFile: {
    parameters: ["pointer", "buffer", "u32", "buffer", "pointer"],
    result: "i32",
    nonblocking: true,
  },
  FlushFileBuffers: { parameters: ["pointer"], result: "i32", nonblocking: true },
  CancelIoEx: { parameters: ["pointer", "pointer"], result: "i32" },
  DisconnectNamedPipe: { parameters: ["pointer"], result: "i32" },
  CloseHandle: { parameters: ["pointer"], result: "i32" },
  GetCurrentProcess: { parameters: [], result: "pointer" },
  GetLastError: { parameters: [], result: "u32" },
  LocalFree: { parameters: ["pointer"], result: "pointer" },
} as const satisfies Deno.ForeignLibraryInterface;

const ADVAPI32 = {
  OpenProcessToken: { parameters: ["pointer", "u32", "buffer"], result: "i32" },
  GetTokenInformation: {
    parameters: ["pointer", "u32", "buffer", "u32", "buffer"],
    result: "i32",
  },
  ConvertSidToStringSidW: { parameters: ["pointer", "buffer"], result: "i32" },
  ConvertStringSecurityDescriptorToSecurityDescriptorW: {
    parameters: ["buffer", "u32", "buffer", "pointer"],
    result: "i32",
  },
} as const satisfies Deno.ForeignLibraryInterface;

/** Opens kernel32/advapi32 (Windows only); a `ConfigError` otherwise, since no pipe could be secured. */
function openWin32PipeSystem(name: string): PipeSystem<Deno.PointerObject> {
  if (Deno.build.os !== "windows") {
    throw new ConfigError(
      `The named pipe "${name}" exists only on Windows; on ${Deno.build.os} svc listens on a Unix socket`,
    );
  }
  let kernel32: Deno.DynamicLibrary<typeof KERNEL32>["symbols"];
  let advapi32: Deno.DynamicLibrary<typeof ADVAPI32>["symbols"];
  try {
    kernel32 = Deno.dlopen("kernel32.dll", KERNEL32).symbols;
    advapi32 = Deno.dlopen("advapi32.dll", ADVAPI32).symbols;
  } catch (error) {
    throw new ConfigError(
      `Cannot secure the named pipe "${name}": loading the Win32 API failed (${
        (error as Error).message
      }); the Windows build needs --allow-ffi`,
    );
  }
  return win32PipeSystem(kernel32, advapi32);
}

function pointerAt(address: bigint, what: string): Deno.PointerObject {
  const pointer = Deno.UnsafePointer.create(address);
  if (pointer === null) throw new Error(`${what} returned a null pointer`);
  return pointer;
}

function win32PipeSystem(
  kernel32: Deno.DynamicLibrary<typeof KERNEL32>["symbols"],
  advapi32: Deno.DynamicLibrary<typeof ADVAPI32>["symbols"],
): PipeSystem<Deno.PointerObject> {
  const failed = (call: string) =>
    new Error(`${call} failed (Windows error ${kernel32.GetLastError()})`);
  return {
    currentUserSid() {
      const tokenOut = new BigUint64Array(1);
      if (!advapi32.OpenProcessToken(kernel32.GetCurrentProcess(), TOKEN_QUERY, tokenOut)) {
        throw failed("OpenProcessToken");
      }
      const token = pointerAt(tokenOut[0], "OpenProcessToken");
      try {
        const tokenUser = new Uint8Array(256);
        const length = new Uint32Array(1);
        if (
          !advapi32.GetTokenInformation(token, TOKEN_USER_CLASS, tokenUser, 256, length)
        ) throw failed("GetTokenInformation");
        const sid = pointerAt(tokenUserSidAddress(tokenUser), "GetTokenInformation");
        const textOut = new BigUint64Array(1);
        if (!advapi32.ConvertSidToStringSidW(sid, textOut)) throw failed("ConvertSidToStringSidW");
        const text = pointerAt(textOut[0], "ConvertSidToStringSidW");
        try {
          const view = new Deno.UnsafePointerView(text);
          return decodeUtf16z((i) => view.getUint16(i * 2), 256);
        } finally {
          kernel32.LocalFree(text);
        }
      } finally {
        kernel32.CloseHandle(token);
      }
    },
    securityAttributes(sddl) {
      const descriptorOut = new BigUint64Array(1);
      if (
        !advapi32.ConvertStringSecurityDescriptorToSecurityDescriptorW(
          utf16z(sddl),
          SDDL_REVISION_1,
          descriptorOut,
          null,
        )
      ) throw failed("ConvertStringSecurityDescriptorToSecurityDescriptorW");
      const descriptor = pointerAt(descriptorOut[0], "ConvertStringSecurityDescriptor");
      return {
        attributes: securityAttributesBuffer(descriptorOut[0]),
        release: () => void kernel32.LocalFree(descriptor),
      };
    },
    createInstance(name, openMode, pipeMode, attributes) {
      const handle = kernel32.CreateNamedPipeW(
        utf16z(name),
        openMode,
        pipeMode,
        PIPE_UNLIMITED_INSTANCES,
        PIPE_BUFFER_BYTES,
        PIPE_BUFFER_BYTES,
        0,
        attributes,
      );
      if (handle === null || isInvalidHandleValue(Deno.UnsafePointer.value(handle))) {
        throw new PipeCreateError(kernel32.GetLastError() || null);
      }
      return handle;
    },
    // ConnectNamedPipe returns FALSE with ERROR_PIPE_CONNECTED when the client came first; the
    // server treats any return as "maybe connected" and lets the first read decide.
    connect: async (handle) => await kernel32.ConnectNamedPipe(handle, null) !== 0,
    async read(handle, into) {
      const count = new Uint32Array(1);
      const ok = await kernel32.ReadFile(handle, into, into.byteLength, count, null);
      return ok ? count[0] : null;
    },
    async write(handle, bytes) {
      const count = new Uint32Array(1);
      for (let offset = 0; offset < bytes.byteLength; offset += count[0]) {
        const rest = bytes.subarray(offset);
        if (!await kernel32.WriteFile(handle, rest, rest.byteLength, count, null)) return false;
        if (count[0] === 0) return false;
      }
      return true;
    },
    flush: async (handle) => await kernel32.FlushFileBuffers(handle) !== 0,
    cancel: (handle) => void kernel32.CancelIoEx(handle, null),
    disconnect: (handle) => void kernel32.DisconnectNamedPipe(handle),
    close: (handle) => void kernel32.CloseHandle(handle),
  };
}
