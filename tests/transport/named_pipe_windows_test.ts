import assert from "node:assert/strict";
import { createHandler } from "../../src/api/app.ts";
import { jsonResponse } from "../../src/api/json.ts";
import { readJsonBody } from "../../src/policy/body.ts";
import { silentLogger } from "../../src/log.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import {
  cancelUntilSettled,
  decodeUtf16z,
  describeCreateFailure,
  ERROR_ACCESS_DENIED,
  FILE_FLAG_FIRST_PIPE_INSTANCE,
  INVALID_HANDLE_VALUE,
  isInvalidHandleValue,
  isSidString,
  isSvcPipeName,
  listenNamedPipe,
  ownerOnlySddl,
  PIPE_ACCESS_DUPLEX,
  PIPE_MODE,
  PIPE_NAME_PREFIX,
  PIPE_READMODE_BYTE,
  PIPE_REJECT_REMOTE_CLIENTS,
  PIPE_TYPE_BYTE,
  PIPE_UNLIMITED_INSTANCES,
  PIPE_WAIT,
  PipeCreateError,
  pipeNameFor,
  pipeOpenMode,
  type PipeSystem,
  SDDL_REVISION_1,
  SECURITY_ATTRIBUTES_SIZE,
  securityAttributesBuffer,
  securityDescriptorOf,
  TOKEN_QUERY,
  TOKEN_USER_CLASS,
  tokenUserSidAddress,
  utf16z,
} from "../../src/transport/named_pipe_windows.ts";

const USER_SID = "S-1-5-21-1004336348-1177238915-682003330-1001";
const PIPE = `${PIPE_NAME_PREFIX}ba7816bf8f01cfea`;

Deno.test("pipeNameFor() is svc- and the first 16 hex of sha256(home) (D15)", async () => {
  assert.equal(await pipeNameFor("abc"), "\\\\.\\pipe\\svc-ba7816bf8f01cfea");
  assert.equal(await pipeNameFor("C:\\Users\\me\\.svc"), "\\\\.\\pipe\\svc-f6f815331024672d");
  assert.equal(await pipeNameFor("/home/me/.svc"), "\\\\.\\pipe\\svc-ca5bd45cf5ca8a82");
  assert.ok(isSvcPipeName(await pipeNameFor("C:\\Users\\me\\.svc")));
  assert.notEqual(
    await pipeNameFor("C:\\Users\\me\\.svc"),
    await pipeNameFor("c:\\users\\me\\.svc"),
  );
  assert.equal(isSvcPipeName("\\\\.\\pipe\\svc-BA7816BF8F01CFEA"), false);
  assert.equal(isSvcPipeName("\\\\server\\pipe\\svc-ba7816bf8f01cfea"), false);
});

Deno.test("the Win32 constants have their documented values", () => {
  assert.equal(PIPE_ACCESS_DUPLEX, 0x3);
  assert.equal(FILE_FLAG_FIRST_PIPE_INSTANCE, 0x80000);
  assert.equal(PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 0);
  assert.equal(PIPE_REJECT_REMOTE_CLIENTS, 0x8);
  assert.equal(PIPE_UNLIMITED_INSTANCES, 255);
  assert.equal(SDDL_REVISION_1, 1);
  assert.equal(TOKEN_QUERY, 0x8);
  assert.equal(TOKEN_USER_CLASS, 1);
  assert.equal(ERROR_ACCESS_DENIED, 5);
  assert.equal(INVALID_HANDLE_VALUE, 2n ** 64n - 1n);
});

Deno.test("pipeOpenMode() sets FIRST_PIPE_INSTANCE on the first instance only; PIPE_MODE refuses remote clients", () => {
  assert.equal(pipeOpenMode(true), 0x00080003);
  assert.equal(pipeOpenMode(false), 0x00000003);
  assert.equal(PIPE_MODE, 0x00000008);
});

Deno.test("ownerOnlySddl() grants only the user and SYSTEM, and denies network logons", () => {
  const sddl = ownerOnlySddl(USER_SID);
  assert.equal(sddl, `O:${USER_SID}D:P(D;;GA;;;NU)(A;;GA;;;${USER_SID})(A;;GA;;;SY)`);
  const aces = [...sddl.matchAll(/\(([^)]*)\)/g)].map((m) => m[1].split(";"));
  assert.deepEqual(aces.filter((ace) => ace[0] === "A").map((ace) => ace[5]), [USER_SID, "SY"]);
  for (const alias of ["WD", "AN", "BU", "BA", "AU", "IU", "OW", "CO"]) {
    assert.ok(!aces.some((ace) => ace[5] === alias), `${alias} must not appear`);
  }
  assert.throws(() => ownerOnlySddl("S-1-1-0)(A;;GA;;;WD"), /not a SID/);
  assert.throws(() => ownerOnlySddl("WD"), /not a SID/);
  assert.equal(isSidString("S-1-5-18"), true);
  assert.equal(isSidString("S-1-5"), false);
});

Deno.test("securityAttributesBuffer() lays out SECURITY_ATTRIBUTES for 64-bit Windows", () => {
  const buffer = securityAttributesBuffer(0x1122_3344_5566_7788n);
  assert.equal(buffer.byteLength, SECURITY_ATTRIBUTES_SIZE);
  assert.equal(SECURITY_ATTRIBUTES_SIZE, 24);
  const view = new DataView(buffer.buffer);
  assert.equal(view.getUint32(0, true), 24, "nLength");
  assert.equal(view.getUint32(4, true), 0, "padding");
  assert.equal(view.getBigUint64(8, true), 0x1122_3344_5566_7788n, "lpSecurityDescriptor");
  assert.equal(view.getInt32(16, true), 0, "bInheritHandle = FALSE");
  assert.equal(view.getUint32(20, true), 0, "padding");
  assert.equal(securityDescriptorOf(buffer), 0x1122_3344_5566_7788n);
  assert.equal(securityDescriptorOf(new Uint8Array(12)), 0n);
  assert.throws(() => securityAttributesBuffer(0n), /null security descriptor/);
});

Deno.test("utf16z() and decodeUtf16z() round-trip NUL-terminated UTF-16", () => {
  const units = utf16z(PIPE);
  assert.equal(units.length, PIPE.length + 1);
  assert.equal(units[units.length - 1], 0);
  assert.equal(units[0], "\\".charCodeAt(0));
  assert.equal(decodeUtf16z((i) => units[i]), PIPE);
  assert.equal(decodeUtf16z((i) => utf16z("S-1-5-18é")[i]), "S-1-5-18é");
  assert.throws(() => decodeUtf16z(() => 65, 8), /not terminated/);
});

Deno.test("tokenUserSidAddress() reads TOKEN_USER.User.Sid at offset 0", () => {
  const tokenUser = new Uint8Array(32);
  new DataView(tokenUser.buffer).setBigUint64(0, 0xabcdef00n, true);
  assert.equal(tokenUserSidAddress(tokenUser), 0xabcdef00n);
});

Deno.test("isInvalidHandleValue() recognises INVALID_HANDLE_VALUE as Deno's FFI reports it", () => {
  const pointer = Deno.UnsafePointer.create(INVALID_HANDLE_VALUE);
  assert.ok(isInvalidHandleValue(Deno.UnsafePointer.value(pointer)));
  assert.ok(isInvalidHandleValue(0n));
  assert.equal(isInvalidHandleValue(0x1a4n), false);
});

Deno.test("describeCreateFailure() names a squatted pipe", () => {
  assert.match(describeCreateFailure(PIPE, 5), /already in use/);
  assert.match(describeCreateFailure(PIPE, 231), /Windows error 231/);
  assert.match(describeCreateFailure(PIPE, null), /no error code/);
  assert.match(describeCreateFailure(PIPE, null), /refusing to serve/);
});

Deno.test({
  name: "listenNamedPipe() without Windows refuses with a ConfigError",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const handler = () => Promise.resolve(new Response("never"));
    await assert.rejects(
      listenNamedPipe(PIPE, handler),
      (error: unknown) => error instanceof ConfigError && /only on Windows/.test(error.message),
    );
  },
});

Deno.test("cancelUntilSettled() repeats the cancel until the operation settles", async () => {
  let pending = true;
  let resolve!: () => void;
  const operation = new Promise<void>((r) => resolve = r);
  let cancels = 0;
  await cancelUntilSettled(
    () => {
      cancels++;
      if (cancels === 3) {
        pending = false;
        resolve();
      }
    },
    operation,
    () => pending,
    { intervalMs: 1 },
  );
  assert.equal(cancels, 3);
  let bounded = 0;
  await cancelUntilSettled(() => bounded++, new Promise(() => {}), () => true, {
    intervalMs: 1,
    attempts: 5,
  });
  assert.equal(bounded, 5);
});

// ---------------------------------------------------------------------------
// The server loop, on an in-memory PipeSystem that records every Win32 call.

interface FakeInstance {
  readonly id: number;
  readonly openMode: number;
  readonly pipeMode: number;
  readonly descriptor: bigint;
  state: "listening" | "connected" | "disconnected" | "closed";
  toServer: Uint8Array[];
  toClient: Uint8Array[];
  clientClosed: boolean;
  connectWaiter: ((connected: boolean) => void) | null;
  readWaiter: { retry: () => boolean; cancel: () => void } | null;
}

class FakePipes implements PipeSystem<FakeInstance> {
  sid = USER_SID;
  sddl: string | null = null;
  released = 0;
  cancels = 0;
  failDescriptor = false;
  nullDescriptor = false;
  failSid = false;
  createFailure: number | null | undefined = undefined;
  readonly instances: FakeInstance[] = [];

  currentUserSid(): string {
    if (this.failSid) throw new Error("OpenProcessToken failed");
    return this.sid;
  }

  securityAttributes(sddl: string) {
    if (this.failDescriptor) throw new Error("ERROR_INVALID_PARAMETER");
    this.sddl = sddl;
    const attributes = this.nullDescriptor
      ? new Uint8Array(SECURITY_ATTRIBUTES_SIZE)
      : securityAttributesBuffer(0xde5cn);
    return { attributes, release: () => void this.released++ };
  }

  createInstance(_name: string, openMode: number, pipeMode: number, attributes: Uint8Array) {
    if (this.createFailure !== undefined) throw new PipeCreateError(this.createFailure);
    const instance: FakeInstance = {
      id: this.instances.length,
      openMode,
      pipeMode,
      descriptor: securityDescriptorOf(attributes),
      state: "listening",
      toServer: [],
      toClient: [],
      clientClosed: false,
      connectWaiter: null,
      readWaiter: null,
    };
    this.instances.push(instance);
    return instance;
  }

  connect(instance: FakeInstance): Promise<boolean> {
    if (instance.state === "disconnected") instance.state = "listening";
    return new Promise((resolve) => instance.connectWaiter = resolve);
  }

  read(instance: FakeInstance, into: Uint8Array): Promise<number | null> {
    return new Promise((resolve) => {
      const retry = () => {
        const chunk = instance.toServer.shift();
        if (chunk) {
          const count = Math.min(chunk.length, into.length);
          into.set(chunk.subarray(0, count));
          if (count < chunk.length) instance.toServer.unshift(chunk.subarray(count));
          resolve(count);
          return true;
        }
        if (instance.clientClosed || instance.state !== "connected") {
          resolve(null);
          return true;
        }
        return false;
      };
      if (!retry()) instance.readWaiter = { retry, cancel: () => resolve(null) };
    });
  }

  write(instance: FakeInstance, bytes: Uint8Array): Promise<boolean> {
    if (instance.clientClosed || instance.state !== "connected") return Promise.resolve(false);
    instance.toClient.push(bytes.slice());
    return Promise.resolve(true);
  }

  flush(): Promise<boolean> {
    return Promise.resolve(true);
  }

  cancel(instance: FakeInstance): void {
    this.cancels++;
    instance.connectWaiter?.(false);
    instance.connectWaiter = null;
    instance.readWaiter?.cancel();
    instance.readWaiter = null;
  }

  disconnect(instance: FakeInstance): void {
    instance.state = "disconnected";
    this.#wake(instance);
  }

  close(instance: FakeInstance): void {
    instance.state = "closed";
    this.#wake(instance);
  }

  /** A client's CreateFile: takes a listening instance, as Windows does. */
  dial(): FakeClient {
    const instance = this.instances.find((i) => i.state === "listening" && i.connectWaiter);
    if (!instance) throw new Error("ERROR_PIPE_BUSY");
    instance.state = "connected";
    const waiter = instance.connectWaiter!;
    instance.connectWaiter = null;
    waiter(true);
    return new FakeClient(this, instance);
  }

  deliver(instance: FakeInstance): void {
    this.#wake(instance);
  }

  #wake(instance: FakeInstance): void {
    if (instance.readWaiter?.retry()) instance.readWaiter = null;
  }
}

class FakeClient {
  readonly #pipes: FakePipes;
  readonly instance: FakeInstance;

  constructor(pipes: FakePipes, instance: FakeInstance) {
    this.#pipes = pipes;
    this.instance = instance;
  }

  send(text: string): void {
    this.instance.toServer.push(new TextEncoder().encode(text));
    this.#pipes.deliver(this.instance);
  }

  close(): void {
    this.instance.clientClosed = true;
    this.#pipes.deliver(this.instance);
  }

  get received(): string {
    return this.instance.toClient.map((chunk) => new TextDecoder().decode(chunk)).join("");
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

const handler = createHandler([
  {
    method: "GET",
    path: "/who",
    summary: "test",
    operationId: "who",
    tag: "system",
    responses: {},
    handler: ({ peer }) => jsonResponse({ transport: peer.transport, owner: peer.owner }),
  },
  {
    method: "POST",
    path: "/echo",
    summary: "test",
    operationId: "echo",
    tag: "system",
    responses: {},
    handler: async ({ req }) => jsonResponse({ got: await readJsonBody(req) }),
  },
], { log: silentLogger });

const GET_WHO = "GET /api/v1/who HTTP/1.1\r\nHost: localhost\r\n\r\n";

Deno.test("listenNamedPipe() serves the handler as the pipe owner on every instance (D15)", async () => {
  const pipes = new FakePipes();
  const listener = await listenNamedPipe(PIPE, handler, {
    system: pipes,
    responseHeaders: { "svc-instance": "pipe-test" },
  });
  assert.equal(listener.address, PIPE);
  const first = pipes.dial();
  first.send(GET_WHO);
  const body = JSON.stringify({ text: "é".repeat(1000) });
  first.send(
    "POST /api/v1/echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
      `Content-Length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`,
  );
  await until(() => (first.received.match(/HTTP\/1\.1 200/g) ?? []).length === 2, "two responses");
  assert.match(first.received, /"transport":"pipe","owner":true/);
  assert.match(first.received, /svc-instance: pipe-test/);
  assert.match(first.received, /"text":"(é){1000}"/);

  await until(() => pipes.instances.length === 2, "a second listening instance");
  const second = pipes.dial();
  second.send("GET /api/v1/who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  await until(() => second.instance.state === "closed", "the closed second connection");
  assert.match(second.received, /connection: close/);

  assert.equal(pipes.sddl, ownerOnlySddl(USER_SID));
  assert.equal(pipes.instances[0].openMode, pipeOpenMode(true));
  for (const instance of pipes.instances.slice(1)) {
    assert.equal(instance.openMode, pipeOpenMode(false));
  }
  for (const instance of pipes.instances) {
    assert.equal(instance.pipeMode, PIPE_MODE);
    assert.equal(instance.descriptor, 0xde5cn, "every instance gets the owner-only descriptor");
  }

  await listener.shutdown();
  assert.ok(pipes.instances.every((instance) => instance.state === "closed"));
  assert.equal(pipes.released, 1);
  assert.ok(pipes.cancels >= 2, "the pending connect and the idle read are cancelled");
});

Deno.test("listenNamedPipe() refuses to serve a pipe it cannot secure (fail closed)", async (t) => {
  const refuses = async (pipes: FakePipes, pattern: RegExp) => {
    await assert.rejects(
      listenNamedPipe(PIPE, handler, { system: pipes }),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
    );
    assert.equal(pipes.instances.length, 0, "no pipe instance exists");
  };
  await t.step("the user's SID cannot be read", async () => {
    const pipes = new FakePipes();
    pipes.failSid = true;
    await refuses(pipes, /current user's SID.*refusing to serve/);
  });
  await t.step("the SID is not a SID", async () => {
    const pipes = new FakePipes();
    pipes.sid = "S-1-1-0)(A;;GA;;;WD";
    await refuses(pipes, /current user's SID/);
  });
  await t.step("the descriptor cannot be built", async () => {
    const pipes = new FakePipes();
    pipes.failDescriptor = true;
    await refuses(pipes, /security descriptor failed/);
  });
  await t.step("the descriptor is null", async () => {
    const pipes = new FakePipes();
    pipes.nullDescriptor = true;
    await refuses(pipes, /null/);
    assert.equal(pipes.released, 1);
  });
  await t.step("the name exists already (FIRST_PIPE_INSTANCE)", async () => {
    const pipes = new FakePipes();
    pipes.createFailure = ERROR_ACCESS_DENIED;
    await refuses(pipes, /already in use/);
    assert.equal(pipes.released, 1);
  });
  await t.step("the name is not an svc pipe name", async () => {
    const pipes = new FakePipes();
    await assert.rejects(
      listenNamedPipe("\\\\.\\pipe\\other", handler, { system: pipes }),
      ConfigError,
    );
  });
});

Deno.test("listenNamedPipe() answers 503 past maxConnections", async () => {
  const pipes = new FakePipes();
  const listener = await listenNamedPipe(PIPE, handler, {
    system: pipes,
    maxConnections: 1,
    responseHeaders: { "svc-instance": "inst-1" },
  });
  const idle = pipes.dial();
  await until(() => pipes.instances.length === 2, "a second listening instance");
  const extra = pipes.dial();
  await until(() => extra.instance.state === "closed", "the refused connection to close");
  assert.match(extra.received, /^HTTP\/1\.1 503 /);
  assert.match(extra.received, /"code":"too_many_connections"/);
  assert.match(extra.received, /svc-instance: inst-1\r\n/, "the refusal names the instance");
  idle.send(GET_WHO);
  await until(() => /200 OK/.test(idle.received), "the first connection to be served");
  await listener.shutdown();
});

Deno.test("listenNamedPipe() keeps its instance listening when a new one cannot be created", async () => {
  const pipes = new FakePipes();
  const listener = await listenNamedPipe(PIPE, handler, { system: pipes });
  pipes.createFailure = null;
  const dropped = pipes.dial();
  await until(() => dropped.instance.state === "disconnected", "the client to be dropped");
  assert.equal(pipes.instances.length, 1, "the name never lost its last instance");
  pipes.createFailure = undefined;
  await until(() => dropped.instance.connectWaiter !== null, "the instance to listen again");
  const client = pipes.dial();
  client.send(GET_WHO);
  await until(() => /200 OK/.test(client.received), "the retried instance to serve");
  await listener.shutdown();
});

Deno.test("listenNamedPipe() shutdown lets an in-flight request finish, then closes", async () => {
  const pipes = new FakePipes();
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const slow = async () => {
    await gate;
    return Response.json({ slow: true });
  };
  const listener = await listenNamedPipe(PIPE, slow, { system: pipes });
  const client = pipes.dial();
  client.send(GET_WHO);
  await new Promise((r) => setTimeout(r, 20));
  const stopped = listener.shutdown();
  release();
  await stopped;
  assert.match(client.received, /"slow":true/);
  assert.match(client.received, /connection: close/);
  assert.ok(pipes.instances.every((instance) => instance.state === "closed"));
});
