import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printCatalogSchema } from './schema';

// Writes schema.graphql at the repository root (dist/src/graphql -> ../../..).
const target = join(__dirname, '..', '..', '..', 'schema.graphql');
writeFileSync(target, printCatalogSchema());
process.stdout.write(`wrote ${target}\n`);
