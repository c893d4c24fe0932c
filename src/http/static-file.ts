// Files the service serves as they are (the /docs reference's and GraphiQL's scripts, styles and
// icons; the OpenAPI document): one body per path, read once, named by a strong ETag of its bytes,
// answered 304 to a matching If-None-Match and without a body to HEAD.
import { createHash } from 'node:crypto';
import { ifNoneMatchNames } from '../rest/use-rest.js';

export interface StaticBody {
  body: string | Uint8Array;
  /** A strong validator of the bytes (http/compression.ts keeps compressed bodies by it). */
  etag: string;
}

export function staticBody(body: string | Uint8Array): StaticBody {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/**
 * The answer to a GET or HEAD of the file, with `headers` (the file's type, caching and security
 * headers) and its ETag. Weak comparison (RFC 9110): a compressed answer carried the ETag weakened.
 */
export function staticAnswer(request: Request, file: StaticBody, headers: Record<string, string>, fetchAPI: { Response: typeof Response }): Response {
  const all = { ...headers, ETag: file.etag };
  if (ifNoneMatchNames(request.headers.get('if-none-match'), file.etag)) return new fetchAPI.Response(null, { status: 304, headers: all });
  return new fetchAPI.Response(request.method === 'HEAD' ? null : (file.body as BodyInit), { status: 200, headers: all });
}
