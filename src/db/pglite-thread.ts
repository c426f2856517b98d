/**
 * The embedded store's PGlite, in a thread of its own: PGlite runs each query as
 * one synchronous stretch of WebAssembly, which on the main thread would stop every other
 * request (and /healthz) for as long as it runs. The main thread (embedded.ts) sends one
 * message per statement and may abandon this thread when a statement runs too long.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

export type ThreadRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'copy'; sql: string; text: string }
  | { id: number; op: 'close' };

export type ThreadReply =
  | { id: number; rows: unknown[] }
  | { id: number; error: { message: string; code?: string; name: string } }
  | { ready: true }
  | { failed: string };

/** The file-system calls of Emscripten's NODEFS that set a file's mode. */
interface NodeFsOps {
  node_ops: {
    mknod(parent: unknown, name: string, mode: number, dev: number): unknown;
    setattr(node: unknown, attr: { mode?: number | null }): void;
  };
}

const OWNER_ONLY = ~0o077;

/**
 * PGlite's shared buffers live in WebAssembly memory, which never shrinks: 128 MB (the
 * default) took a served store to ~310 MiB; 32 MB to ~170 MiB. Its files are read through
 * the OS page cache anyway.
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

async function serve(port: NonNullable<typeof parentPort>, dataDir: string | undefined): Promise<void> {
  let db: PGlite;
  try {
    db = dataDir
      ? new PGlite({ fs: new PrivateNodeFS(dataDir), postgresqlconf: EMBEDDED_SETTINGS })
      : new PGlite();
    await db.waitReady;
  } catch (err) {
    port.postMessage({ failed: err instanceof Error ? err.message : String(err) } satisfies ThreadReply);
    return;
  }
  port.on('message', async (request: ThreadRequest) => {
    try {
      switch (request.op) {
        case 'query': {
          const result = await db.query(request.sql, request.params);
          port.postMessage({ id: request.id, rows: result.rows } satisfies ThreadReply);
          break;
        }
        case 'exec':
          await db.exec(request.sql);
          port.postMessage({ id: request.id, rows: [] } satisfies ThreadReply);
          break;
        case 'copy':
          // PGlite reads COPY input from a Blob handed to the query as /dev/blob.
          await db.query(request.sql, [], { blob: new Blob([request.text]) });
          port.postMessage({ id: request.id, rows: [] } satisfies ThreadReply);
          break;
        case 'close':
          await db.close();
          port.postMessage({ id: request.id, rows: [] } satisfies ThreadReply);
          port.close();
          break;
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const code = (error as { code?: unknown }).code;
      port.postMessage({
        id: request.id,
        error: { message: error.message, name: error.name, ...(typeof code === 'string' ? { code } : {}) },
      } satisfies ThreadReply);
    }
  });
  port.postMessage({ ready: true } satisfies ThreadReply);
}

if (parentPort) await serve(parentPort, (workerData as { dataDir?: string }).dataDir);
