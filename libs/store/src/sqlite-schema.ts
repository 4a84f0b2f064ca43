// Opening the embedded store's file: refuse what is not ours (a corrupt file, another program's database, a
// file another API server holds), create the revision log in a new file, and bring the first layout (a
// current-state table plus an event table) forward to the log so an existing store keeps its keys and its
// revision counter.
import Database from 'better-sqlite3';

/** 'clst' in the SQLite header's application_id field marks a cl store. */
const APPLICATION_ID = 0x636c7374;
const SCHEMA_VERSION = 2;

const LOG_SCHEMA = `
  CREATE TABLE log (
    revision INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    version INTEGER NOT NULL,
    lease INTEGER NOT NULL,
    prev_lease INTEGER NOT NULL,
    value BLOB,
    old_value BLOB);
  CREATE INDEX log_key_revision ON log (key, revision);
  CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  CREATE TABLE leases (id INTEGER PRIMARY KEY, ttl INTEGER NOT NULL, expires_at INTEGER NOT NULL);
`;

/** The tables of the first layout (before the revision log), which are migrated rather than refused. */
const FIRST_LAYOUT = ['events', 'kv', 'meta'];

export class StoreFileError extends Error {
  constructor(file: string, why: string) {
    super(`store file ${file} ${why}`);
    this.name = 'StoreFileError';
  }
}

/** Opens (or creates) the store file and returns a connection on the current schema, holding the file's lock. */
export function openStoreFile(file: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (e) {
    throw new StoreFileError(file, `cannot be opened: ${(e as Error).message}`);
  }
  try {
    prepare(db, file);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function prepare(db: Database.Database, file: string) {
  let appId: number;
  try {
    appId = db.pragma('application_id', { simple: true }) as number;
  } catch (e) {
    throw new StoreFileError(file, `is not a cl store: ${(e as Error).message}`);
  }
  // One API server per file: the first connection keeps the lock, a second opener is refused below rather
  // than writing revisions the first one does not know about.
  db.pragma('busy_timeout = 1000');
  if (file !== ':memory:') db.pragma('locking_mode = EXCLUSIVE');
  try {
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE; COMMIT');
  } catch (e) {
    const msg = (e as Error).message;
    if (/locked|busy/i.test(msg)) throw new StoreFileError(file, `is in use by another process (${msg})`);
    throw new StoreFileError(file, `is not a cl store: ${msg}`);
  }
  // Commits append to the WAL without waiting for the disk; SqliteStore fsyncs the WAL itself, off the event loop,
  // and shows nobody a write (reader, watcher or writer) before that fsync returned. Checkpoints still sync.
  db.pragma('synchronous = NORMAL');

  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter(
    (t) => !t.startsWith('sqlite_'),
  );
  if (appId === APPLICATION_ID) {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION) throw new StoreFileError(file, `has schema version ${version}; this build reads version ${SCHEMA_VERSION}`);
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw new StoreFileError(file, `is corrupt: ${check}`);
    return;
  }
  if (appId !== 0) throw new StoreFileError(file, `is not a cl store: it belongs to another application (id 0x${appId.toString(16)})`);
  if (tables.length === 0) {
    db.transaction(() => {
      db.exec(LOG_SCHEMA);
      stamp(db);
    })();
    return;
  }
  if (tables.join(',') === FIRST_LAYOUT.join(',')) {
    migrateFirstLayout(db);
    return;
  }
  throw new StoreFileError(file, `is not a cl store: it holds other tables (${tables.join(', ')})`);
}

function stamp(db: Database.Database) {
  db.pragma(`application_id = ${APPLICATION_ID}`);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

/**
 * The first layout kept each key's current state and an event table with no previous values. Its keys become
 * one log row each at their own revision; the history before is not kept, so the store starts compacted at its
 * old revision (a watch or read from before answers "compacted", as after any compaction).
 */
function migrateFirstLayout(db: Database.Database) {
  db.transaction(() => {
    const revision = (db.prepare('SELECT revision FROM meta WHERE id = 1').pluck().get() as number | undefined) ?? 1;
    db.exec('ALTER TABLE kv RENAME TO old_kv; DROP TABLE events; DROP TABLE meta;');
    db.exec(LOG_SCHEMA);
    db.exec(`INSERT INTO log (revision, key, deleted, create_revision, prev_revision, version, lease, prev_lease, value, old_value)
             SELECT mod_revision, key, 0, create_revision, 0, version, 0, 0, value, NULL FROM old_kv`);
    db.exec('DROP TABLE old_kv');
    const insertMeta = db.prepare('INSERT INTO meta (name, value) VALUES (?, ?)');
    insertMeta.run('revision_floor', revision);
    insertMeta.run('compact_revision', revision);
    stamp(db);
  })();
}
