// read_arrow.mjs FILE — reads an Arrow IPC file with the apache-arrow npm
// package (an Arrow implementation independent of arrow-go) and prints, as
// JSON on stdout: the row count, each column's name and type, and every row
// with dictionary values decoded, lists as arrays, 64-bit integers and
// durations as decimal strings and nulls as null.
//
// apache-arrow is resolved through NODE_PATH (require honours it) or from
// weft's build/js/node_modules (installed by scripts/setup.sh).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

function loadArrow() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    import.meta.url,
    path.join(here, '..', '..', '..', 'build', 'js', 'package.json'),
  ];
  for (const from of candidates) {
    try {
      return createRequire(from)('apache-arrow');
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  console.error('read_arrow: apache-arrow not found (set NODE_PATH or run scripts/setup.sh)');
  process.exit(3);
}

function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'object' && typeof v.toArray === 'function') return Array.from(v.toArray(), plain);
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  return v;
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node read_arrow.mjs FILE.arrow');
  process.exit(2);
}
const { tableFromIPC } = loadArrow();
const table = tableFromIPC(readFileSync(file));
const columns = table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) }));
const rows = [];
for (let i = 0; i < table.numRows; i++) {
  const row = {};
  for (const f of table.schema.fields) {
    row[f.name] = plain(table.getChild(f.name).get(i));
  }
  rows.push(row);
}
process.stdout.write(JSON.stringify({ numRows: table.numRows, columns, rows }));
