// first_crash.mjs FILE.parquet — asks DuckDB (npm's @duckdb/node-api) for
// the mean virtual time of the first crash among violated runs, per
// variant, from a weft Parquet export: the fault schedule is a list of
// structs, so the query needs no string parsing. Prints JSON on stdout:
// {"means": [{variant, runs, mean_first_crash_us}], "order": [[variant, seed]…],
//  "row_groups": N, "meta": {key: value}}.
//
// @duckdb/node-api is resolved from weft's build/js (scripts/setup.sh).
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const req = createRequire(path.join(here, '..', '..', '..', 'build', 'js', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);

const file = process.argv[2];
if (!file) {
  console.error('usage: node first_crash.mjs FILE.parquet');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const q = async (sql) => (await c.runAndReadAll(sql, [file])).getRowObjectsJson();

const means = await q(`
  SELECT variant, count(*) AS runs, avg(first_crash_us) AS mean_first_crash_us
  FROM (SELECT variant,
               list_min(list_transform(list_filter(faults, lambda f: f.kind = 'crash'), lambda f: f.at_us)) AS first_crash_us
        FROM read_parquet($1)
        WHERE verdict = 'violated')
  WHERE first_crash_us IS NOT NULL
  GROUP BY variant ORDER BY variant`);
const order = (await q(`SELECT variant, seed FROM read_parquet($1)`)).map((r) => [r.variant, Number(r.seed)]);
const groups = await q(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata($1)`);
const meta = {};
for (const r of await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata($1)`)) {
  if (r.k.startsWith('weft.')) meta[r.k] = r.v;
}
console.log(JSON.stringify({ means, order, row_groups: Number(groups[0].n), meta }));
