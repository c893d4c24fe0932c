// Changing a header of an answer built elsewhere: Vary built up by each part that makes the
// answer depend on a request header, and a value replaced without leaving the old one beside it.

/** `vary` with `name` added, unless it names it already (in any case) or is `*`. */
export function varyWith(vary: string | null, name: string): string {
  if (!vary?.trim()) return name;
  const names = vary.split(',').map((part) => part.trim().toLowerCase());
  return names.includes(name.toLowerCase()) || names.includes('*') ? vary : `${vary}, ${name}`;
}

/**
 * headers.set(), but @whatwg-node's Headers built from a plain object keep the object, and set()
 * adds a lower-case key beside one spelt otherwise (`ETag`): the answer would carry both. Deleting
 * first turns them into a map of lower-case names.
 */
export function replaceHeader(headers: Headers, name: string, value: string): void {
  const current = headers.get(name);
  if (current === value) return;
  if (current !== null) headers.delete(name);
  headers.set(name, value);
}
