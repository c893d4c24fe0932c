// Which full-text search listed a row: lists searched by `text` mark their rows, and
// `Interaction.highlights` (schema/text-highlights.ts) reads the mark. Rows are objects of one
// request, so the map holds them weakly.

/** Row -> the text of the search that listed it. */
export const searchedBy = new WeakMap<object, string>();

/** The rows, marked as found by `text` (nothing to mark without a search). */
export async function searchedRows<T extends object>(rows: Promise<T[]>, text: string | undefined): Promise<T[]> {
  const found = await rows;
  if (text !== undefined) for (const row of found) searchedBy.set(row, text);
  return found;
}
