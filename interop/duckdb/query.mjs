// query.mjs runs one SQL statement with DuckDB and prints the rows as JSON
// (one array of objects) on stdout. The archive tests call it to check
// that DuckDB reads what speedmatrix writes, as a user would.
//
// usage: node query.mjs 'SELECT ...'
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node query.mjs SQL');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRowObjectsJson();
process.stdout.write(JSON.stringify(rows) + '\n');
