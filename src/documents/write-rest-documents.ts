// Writes the REST documents that take interaction filters (rest-documents.ts) to schema/rest/,
// where codegen types them. Run by `npm run generate`; its output is committed and checked.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config.js';
import { REST_FILTER_DOCUMENTS } from './rest-documents.js';

const HEADER = '# Written by `npm run generate` from src/documents/rest-documents.ts: edit that, not this.\n';

for (const [name, document] of Object.entries(REST_FILTER_DOCUMENTS)) {
  fs.writeFileSync(path.join(projectRoot, 'schema', 'rest', name), HEADER + document);
}
