// Picks the backend the way the API server's flags describe it: etcd when --store-servers is given,
// otherwise the embedded SQLite file under --data-dir.
import { join } from 'node:path';
import { EtcdStore, type EtcdStoreOptions } from './etcd-store';
import { SqliteStore } from './sqlite-store';
import type { Store } from './store';

export interface OpenStoreOptions {
  servers?: string[];
  dataDir?: string;
  prefix?: string;
  tls?: EtcdStoreOptions['tls'];
  connectTarget?: string;
}

export function openStore(opts: OpenStoreOptions): Store {
  if (opts.servers && opts.servers.length > 0) {
    return new EtcdStore({ servers: opts.servers, prefix: opts.prefix, tls: opts.tls, connectTarget: opts.connectTarget });
  }
  if (!opts.dataDir) throw new Error('either store servers or a data directory is required');
  return new SqliteStore(join(opts.dataDir, 'store.db'));
}
