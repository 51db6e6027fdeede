import { textResponse } from "../transport/text_body.ts";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/** A JSON response; every svc response is `application/json` (C4). */
export function jsonResponse(body: unknown, status = 200): Response {
  return jsonTextResponse(JSON.stringify(body), status);
}

/** A response of JSON text that is already serialised. */
export function jsonTextResponse(text: string, status = 200): Response {
  return textResponse(text, { status, headers: JSON_HEADERS });
}
