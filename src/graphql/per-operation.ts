// A value kept per parsed document and operation name, for as long as the document lives: Yoga's
// parser cache hands each repeat of a query text the same DocumentNode, so whatever depends only on
// the document and the operation asked (its compilation, its cost without variables) is worked out
// once. At most MAX_OPERATIONS_PER_DOCUMENT names are kept per document: a client may name
// operations the document lacks, and those are worked out again each time.

const MAX_OPERATIONS_PER_DOCUMENT = 16;

/** A memory of `compute`'s answers by (document, operation name). */
export function perOperation<T>(): (document: object, operationName: string | undefined, compute: () => T) => T {
  const kept = new WeakMap<object, Map<string | undefined, T>>();
  return (document, operationName, compute) => {
    let byName = kept.get(document);
    if (!byName) {
      byName = new Map();
      kept.set(document, byName);
    }
    if (byName.has(operationName)) return byName.get(operationName) as T;
    const value = compute();
    if (byName.size < MAX_OPERATIONS_PER_DOCUMENT) byName.set(operationName, value);
    return value;
  };
}
