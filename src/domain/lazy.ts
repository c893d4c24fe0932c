// Deferred work shared by everyone who asks for it: a page's count serves `total`, `totalPages`
// and `hasMore` (GraphQL page info) and the REST meta alike, and is never run when nobody asks.

/** Runs `load` once, when first asked, for everyone who asks. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= load();
    return result;
  };
}
