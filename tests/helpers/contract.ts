/**
 * Contract tests (issue 15): every response an integration test receives
 * through `ContractClient` is validated against docs/openapi.json (the
 * document the daemon serves, kept current by tests/api/openapi_test.ts)
 * with a JSON Schema validator from the npm registry, so the description
 * can never drift from what the daemon answers.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { type ClientResponse, SvcClient } from "../../src/client/client.ts";

type Json = Record<string, unknown>;

const DOCUMENT = JSON.parse(
  Deno.readTextFileSync(new URL("../../docs/openapi.json", import.meta.url)),
) as { paths: Record<string, Record<string, Json>> };

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction | null>();

/** Path templates, static ones first (the router's rule: a static path owns its methods). */
const TEMPLATES = Object.keys(DOCUMENT.paths)
  .map((template) => ({
    template,
    pattern: new RegExp("^" + template.replace(/\{\w+\}/g, "[^/]+") + "$"),
    static: !template.includes("{"),
  }))
  .sort((a, b) => Number(b.static) - Number(a.static));

/** The documented operation of `method` on `pathname` (with /api/v1), or null. */
function operationOf(method: string, pathname: string): Json | null {
  const found = TEMPLATES.find(({ pattern }) => pattern.test(pathname));
  if (!found) return null;
  return DOCUMENT.paths[found.template][method.toLowerCase()] as Json ?? null;
}

/**
 * Throws when `body` (status `status`) of `method path` breaks the
 * document: an undocumented status, or a body its schema refuses.
 */
export function assertDocumented(method: string, path: string, status: number, body: unknown) {
  const pathname = "/api/v1" + path.split("?")[0];
  const operation = operationOf(method, pathname);
  if (operation === null) return; // A route the daemon does not have: 404/405, checked below.
  const responses = operation.responses as Record<string, Json>;
  const documented = responses[String(status)] ?? responses.default;
  if (!documented) {
    throw new Error(`OpenAPI: ${method} ${path} answered ${status}, which is not documented`);
  }
  const content = documented.content as Record<string, { schema: Json }> | undefined;
  const schema = content?.["application/json"]?.schema;
  if (!schema) return;
  const key = `${method} ${pathname} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (validate && !validate(body)) {
    throw new Error(
      `OpenAPI: ${method} ${path} ${status} breaks the document: ` +
        ajv.errorsText(validate.errors, { separator: "; " }) + `\nbody: ` +
        JSON.stringify(body).slice(0, 600),
    );
  }
}

/** A client whose every answer is checked against the document. */
export class ContractClient extends SvcClient {
  override async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    init: { signal?: AbortSignal } = {},
  ): Promise<ClientResponse<T>> {
    const response = await super.request<T>(method, path, body, init);
    assertDocumented(method, path, response.status, response.body);
    return response;
  }
}
