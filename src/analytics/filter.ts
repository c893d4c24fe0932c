// What every metrics query selects: a window on started_at plus the restrictions the rollup levels
// key (clinics, and each filter declared a rollup key: filters/interaction-filters.ts). The caller
// (REST or GraphQL) has already resolved defaults, date-only bounds and the API key's clinic
// restriction into this object.
import type { Dimensions } from '../rollups/counted.js';

export type MetricsFilter = Dimensions & {
  /** Inclusive lower bound on started_at. */
  from: Date;
  /** Inclusive upper bound on started_at (a date-only `date_to` arrives as 23:59:59.999 UTC). */
  to: Date;
};

/** The restrictions of a metrics filter without its window. */
export function dimensionsOfWindow({ from: _from, to: _to, ...dimensions }: MetricsFilter): Dimensions {
  return dimensions;
}
