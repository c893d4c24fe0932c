// Writes schema/schema.graphql from the Pothos schema (`npm run generate`); a test fails when the
// committed file is stale.
import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { projectRoot } from '../config.js';
import { schema } from './index.js';

export const printedSchemaPath = path.join(projectRoot, 'schema', 'schema.graphql');

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  fs.writeFileSync(printedSchemaPath, printedSchema());
  console.log(`Wrote ${path.relative(process.cwd(), printedSchemaPath)}`);
}
