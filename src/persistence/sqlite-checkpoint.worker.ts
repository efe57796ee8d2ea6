/**
 * The SQLite WAL checkpointer thread (issue 14): it owns one better-sqlite3 connection to the catalog file and copies
 * the WAL back into the database file every `intervalMs` (PASSIVE: it waits for no one and blocks no one; writers go
 * on appending to the WAL, readers go on reading). The main connection's own autocheckpoint is off while this runs
 * (SqliteCheckpointer), so a commit on the event loop never does that copy and its fsyncs inline: on the call path
 * every ~100th call's log write did, ~1 ms to tens of ms of the event loop each time (bench scenario i).
 * Imports better-sqlite3 only.
 */
import { parentPort, workerData } from 'node:worker_threads';

interface Database {
  pragma(source: string): unknown;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const openDatabase = require('better-sqlite3') as new (path: string) => Database;

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new openDatabase(path);
db.pragma('busy_timeout = 5000');
db.pragma('wal_autocheckpoint = 0');

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* busy or a transient error: the next round catches up (the WAL is only longer meanwhile) */
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort!.on('message', (m: { op: 'close' }) => {
  if (m.op !== 'close') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort!.postMessage({ closed: true });
});
