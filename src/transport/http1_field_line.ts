import { badRequest } from "./http1_errors.ts";

const FIELD_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** One `name: value` line of a head or a chunked body's trailer section. */
export function parseFieldLine(line: string): readonly [string, string] {
  if (line.startsWith(" ") || line.startsWith("\t")) {
    throw badRequest("Folded header lines (obs-fold) are not accepted");
  }
  const match = FIELD_LINE.exec(line);
  if (!match) throw badRequest(`Header line "${line.slice(0, 40)}" is malformed`);
  const value = match[2].replace(/^[ \t]+|[ \t]+$/g, "");
  if (!FIELD_VALUE.test(value)) {
    throw badRequest(`Header "${match[1]}" holds a control character`);
  }
  return [match[1], value];
}
