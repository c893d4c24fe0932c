// The request's header fields as the wire carried them, checked before anything reads one. Node
// keeps at most `maxHeadersCount` fields (1,000 by default) and drops the rest without a word, so an
// Authorization after them was simply not there; and of a field it takes once (Host,
// Authorization, Content-Type and the other fields that hold one value) it keeps the first and
// drops any repeat, so two Authorization fields were served under the first. A proxy or a client
// may well read such a request otherwise (the last field, or all of them): both are refused here,
// as a duplicate Host always was.
import type { IncomingMessage, Server } from 'node:http';
import type { EdgeError } from './raw-envelope.js';

/** At most this many header fields per request (Apache httpd's LimitRequestFields default). */
export const MAX_HEADER_FIELDS = 100;

/**
 * Lets Node keep one field more than the limit, so that a request over it is seen (and refused)
 * rather than cut to size; the 16 KB bound on the whole head still bounds what is parsed.
 */
export function countHeaderFields(server: Server): void {
  server.maxHeadersCount = MAX_HEADER_FIELDS + 1;
}

/** `content-type` as `Content-Type`, for messages. */
const spelt = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/** What is wrong with the request's header fields, if anything. */
export function headerFieldsProblem(request: IncomingMessage): EdgeError | undefined {
  if (request.rawHeaders.length / 2 > MAX_HEADER_FIELDS) {
    return { code: 'REQUEST_TOO_LARGE', status: 431, message: `The request has more than ${MAX_HEADER_FIELDS} header fields; send fewer` };
  }
  // Node joins the repeats of a list field (`a, b`) and keeps only the first of any other: a field
  // sent more than once whose value is its first alone is one whose repeats were dropped. Derived
  // from Node's own treatment, so no list of single-valued fields is kept here.
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (values && values.length > 1 && request.headers[name] === values[0]) {
      return { code: 'BAD_REQUEST', message: `The request has more than one ${spelt(name)} header; send it once` };
    }
  }
  return undefined;
}
