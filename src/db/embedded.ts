import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import type { Database, Queryable } from './database.ts';

/** The file-system calls of Emscripten's NODEFS that set a file's mode. */
interface NodeFsOps {
  node_ops: {
    mknod(parent: unknown, name: string, mode: number, dev: number): unknown;
    setattr(node: unknown, attr: { mode?: number | null }): void;
  };
}

const OWNER_ONLY = ~0o077;

/**
 * PGlite's shared buffers live in the process's WebAssembly memory, which never shrinks:
 * 128 MB (the default) took a served store to ~310 MiB; 32 MB to ~170 MiB. Its files are
 * read through the OS page cache anyway.
 */
const EMBEDDED_SETTINGS = 'shared_buffers = 32MB\nwal_buffers = 1MB\n';

/**
 * PGlite's folder with every file it creates or chmods kept to its owner (PGlite itself asks
 * for 0666, and chmods after creating, so the process umask alone does not hold).
 */
class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, options: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, options);
    const preRun = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [
      (module: { NODEFS: NodeFsOps }) => {
        const ops = module.NODEFS.node_ops;
        const { mknod, setattr } = ops;
        ops.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & OWNER_ONLY, dev);
        ops.setattr = (node, attr) =>
          setattr(node, attr.mode == null ? attr : { ...attr, mode: attr.mode & OWNER_ONLY });
      },
      ...preRun,
    ];
    return result;
  }
}

/**
 * The embedded store: PGlite (PostgreSQL in WebAssembly) kept in a folder, or in memory
 * when `dataDir` is undefined. One process at a time may open a folder; see lock.ts.
 */
export async function openEmbedded(dataDir: string | undefined): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = dataDir
    ? new PGlite({ fs: new PrivateNodeFS(dataDir), postgresqlconf: EMBEDDED_SETTINGS })
    : new PGlite();
  await db.waitReady;

  const asQueryable = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const result = await target.query<Row>(sql, params as unknown[] | undefined);
      return result.rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
    async copyFrom(table: string, columns: readonly string[], text: string) {
      // PGlite reads COPY input from a Blob handed to the query as /dev/blob.
      await target.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], {
        blob: new Blob([text]),
      });
    },
  });

  return {
    kind: 'embedded',
    ...asQueryable(db),
    transaction: (work) => db.transaction((tx) => work(asQueryable(tx))),
    // PGlite queues queries itself, one at a time; there is no pool to wait for.
    poolStats: () => ({ waits: 0, sheds: 0, waiting: 0 }),
    async ping() {
      await db.query('SELECT 1');
    },
    async close() {
      await db.close();
    },
  };
}
