// How an import report is shown: one JSON document (--json) or a table for people.

import { KEY_PREFIX_OF_ENVIRONMENT } from '../auth/api-keys.js';
import type { ImportReport } from './import.js';
import { RESOURCES } from './records.js';

export interface ImportJson {
  /** The environment written (`live` or `sandbox`). */
  environment: string;
  written: { clinics: number; campaigns: number; interactions: number };
  invalid: number;
  errors: string[];
  /** Only when more problems were found than listed. */
  errors_not_listed?: number;
  /** Only when nothing was written because of invalid lines. */
  error?: string;
}

/** Why nothing was written, when invalid lines prevented it. */
export function rejection(report: ImportReport): string | undefined {
  if (report.committed || report.invalid === 0) return undefined;
  const lines = report.invalid === 1 ? '1 invalid line' : `${report.invalid} invalid lines`;
  return `${lines}: nothing was written (--skip-invalid writes the valid lines)`;
}

export function toJson(report: ImportReport): ImportJson {
  const written = (r: (typeof RESOURCES)[number]) => report.resources[r]?.written ?? 0;
  const reason = rejection(report);
  return {
    environment: report.environment,
    written: { clinics: written('clinics'), campaigns: written('campaigns'), interactions: written('interactions') },
    invalid: report.invalid,
    errors: report.problems,
    ...(report.problemsNotListed > 0 ? { errors_not_listed: report.problemsNotListed } : {}),
    ...(reason ? { error: reason } : {}),
  };
}

/** The summary table, one string per line. */
export function summaryLines(report: ImportReport): string[] {
  const header = ['', 'file', 'lines', 'valid', 'invalid', 'written'];
  const rows = RESOURCES.flatMap((resource) => {
    const r = report.resources[resource];
    return r ? [[resource, r.file, r.lines, r.valid, r.invalid, r.written].map(String)] : [];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = [format(header), ...rows.map(format)];
  if (report.committed)
    lines.push(`Written in one transaction, to the ${report.environment} environment (${KEY_PREFIX_OF_ENVIRONMENT[report.environment]} keys see it).`);
  return lines;
}

/** The problems, then a line saying how many were not listed. */
export function problemLines(report: ImportReport): string[] {
  return report.problemsNotListed > 0 ? [...report.problems, `... and ${report.problemsNotListed} more problem(s) not listed`] : report.problems;
}
