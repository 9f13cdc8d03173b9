// poll.mjs runs one SQL script with DuckDB again and again until a stop
// file exists, and prints what it saw as JSON: the number of runs, the
// distinct results (each an array of row objects) and every error. The
// archive tests call it to read an archive while it is being written and
// compacted, as a dashboard polling it would.
//
// usage: node poll.mjs SQL STOPFILE READYFILE
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, writeFileSync } from 'node:fs';

const [sql, stop, ready] = process.argv.slice(2);
if (!sql || !stop || !ready) {
  console.error('usage: node poll.mjs SQL STOPFILE READYFILE');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
let runs = 0;
const results = new Set();
const errors = [];
for (;;) {
  const last = existsSync(stop);
  try {
    const reader = await conn.runAndReadAll(sql);
    results.add(JSON.stringify(reader.getRowObjectsJson()));
  } catch (e) {
    errors.push(String(e && e.message || e));
  }
  runs++;
  if (runs === 1) writeFileSync(ready, 'ready\n');
  if (last) break;
}
process.stdout.write(JSON.stringify({ runs, results: [...results].map((r) => JSON.parse(r)), errors }) + '\n');
