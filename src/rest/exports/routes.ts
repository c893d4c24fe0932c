// Which routes have exports, and in which formats: the one answer that the REST facade (whether
// `format` is a parameter, whether an Accept can be met), the exports and the OpenAPI document read.

import { EXPORT_TYPES, type ExportFormat } from '../routes.js';
import { metricsExportOf } from './metrics.js';

export const INTERACTIONS_PATH = '/api/v1/interactions';

const EVERY_FORMAT = Object.keys(EXPORT_TYPES) as ExportFormat[];

/** The export formats of the route at `path`; none when it has no export. */
export function exportFormatsOf(path: string): readonly ExportFormat[] {
  return path === INTERACTIONS_PATH || metricsExportOf(path) ? EVERY_FORMAT : [];
}
