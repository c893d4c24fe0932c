// The `Link` header of list answers (RFC 8288): `first`, `prev`, `next`, `last` for pages, `next`
// for cursors. Targets are relative references (path and query), so they hold behind any proxy or
// host name; the client's other parameters are kept as it wrote them.

/** The request's query with `name` set to `value` (replaced where it was, else added). */
function withParameter(url: URL, name: string, value: string): string {
  const pairs = url.search.slice(1).split('&').filter(Boolean);
  const encoded = `${name}=${encodeURIComponent(value)}`;
  let replaced = false;
  const kept = pairs.map((pair) => {
    const key = pair.split('=', 1)[0];
    if (key !== name) return pair;
    replaced = true;
    return encoded;
  });
  if (!replaced) kept.push(encoded);
  return `${url.pathname}?${kept.join('&')}`;
}

const link = (target: string, rel: string) => `<${target}>; rel="${rel}"`;

/** Links of a page (`last` only when the total is known). */
export function pageLinks(url: URL, meta: { page: number; total_pages: number | null; has_more: boolean }): string {
  const links = [link(withParameter(url, 'page', '1'), 'first')];
  if (meta.page > 1) {
    // A page past the last points back to the last one (or the first when nothing matches).
    const previous = meta.total_pages !== null && meta.page > meta.total_pages ? Math.max(meta.total_pages, 1) : meta.page - 1;
    links.push(link(withParameter(url, 'page', String(previous)), 'prev'));
  }
  if (meta.has_more) links.push(link(withParameter(url, 'page', String(meta.page + 1)), 'next'));
  if (meta.total_pages !== null) links.push(link(withParameter(url, 'page', String(Math.max(meta.total_pages, 1))), 'last'));
  return links.join(', ');
}

/** The link to the next page of a cursor list, if there is one. */
export function cursorLinks(url: URL, meta: { next_cursor: string | null }): string | undefined {
  return meta.next_cursor === null ? undefined : link(withParameter(url, 'cursor', meta.next_cursor), 'next');
}
