/**
 * The embedded store's PGlite, in a thread of its own: PGlite runs each query as
 * one synchronous stretch of WebAssembly, which on the main thread would stop every other
 * request (and /healthz) for as long as it runs. The main thread (embedded.ts) sends one
 * message per statement and may abandon this thread when a statement runs too long.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

export type ThreadRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; prepared?: boolean }
  | { id: number; op: 'exec'; sql: string }
  /** `bytes` (the rows in COPY's binary format) is handed over, and handed back with the answer. */
  | { id: number; op: 'copy'; sql: string; bytes: ArrayBuffer }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'close' };

export type ThreadReply =
  | { id: number; rows: unknown[]; bytes?: ArrayBuffer }
  | { id: number; error: { message: string; code?: string; name: string } }
  /** The engine goes back with the first thread's answer, for the next thread (embedded.ts). */
  | { ready: true; engine?: EngineArtifacts }
  | { failed: string }
  /** A NOTIFY on a channel the main thread listens to (delivered at its transaction's commit). */
  | { notification: { channel: string; payload: string } };

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
 * the OS page cache anyway. In-memory stores (tests) take the same settings, and
 * IN_MEMORY_SETTINGS.
 */
export const EMBEDDED_SETTINGS = 'shared_buffers = 32MB\nwal_buffers = 1MB\n';

/**
 * An in-memory store's files are arrays in its thread's memory, which grow by an eighth at a
 * time: a new 16 MB WAL segment filled with zeros, as PostgreSQL makes one by default, was
 * copied some thirty times on its way there. Without the zeros the segment is made at its
 * size in one step (a loop of writes in a test store took 3.6 CPU-seconds instead of 5.5).
 * A folder on disk keeps the zeros: they reserve the segment's space before any record needs
 * it.
 */
const IN_MEMORY_SETTINGS = 'wal_init_zero = off\n';

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

/** The most statements kept prepared; past it, statements run as they come (unprepared). */
const MAX_PREPARED = 256;

/**
 * Statements parsed and planned once and then run by name (QueryOptions.prepared), as the
 * PostgreSQL pool's connections keep them: PGlite's own query() parses, describes and
 * plans its statement at every call, which on the hottest statements (the link page's, the
 * batches of live tracking) costs several times what running them does. Keyed by text; the
 * extended protocol's messages go in one exchange ending in Sync, so an error leaves the
 * session ready for the next statement (inside a transaction, aborted as any error would).
 */
class PreparedStatements {
  private readonly statements = new Map<string, { name: string; types: number[] }>();

  constructor(private readonly db: PGlite) {}

  async query(sql: string, params: readonly unknown[]): Promise<unknown[] | undefined> {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= MAX_PREPARED) return undefined;
      const name = `dealroom_${this.statements.size + 1}`;
      const described = await this.exchange(
        protocol.serialize.parse({ name, text: sql, types: [] }),
        protocol.serialize.describe({ type: 'S', name }),
      );
      statement = { name, types: parse.parseDescribeStatementResults(described) };
      this.statements.set(sql, statement);
    }
    const { types } = statement;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.db.serializers[types[i] as number];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await this.exchange(
      protocol.serialize.bind({ statement: statement.name, values }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
    );
    return parse.parseResults(messages, this.db.parsers)[0]?.rows ?? [];
  }

  /** Messages and a Sync in one exchange; the first error is thrown once the session is ready again. */
  private async exchange(...messages: Uint8Array[]): Promise<Parameters<typeof parse.parseResults>[0]> {
    const result = await this.db.execProtocol(Buffer.concat([...messages, protocol.serialize.sync()]), {
      throwOnError: false,
    });
    const error = result.messages.find((m) => m.name === 'error');
    if (error) throw error;
    return result.messages;
  }
}

/** PGlite's engine, compiled once per process: by the first thread, which hands it back. */
export interface EngineArtifacts {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}

interface ThreadData {
  dataDir?: string | undefined;
  /** A tarball of a data folder to start from when the store has none yet. */
  loadDataDir?: string | undefined;
  engine?: EngineArtifacts | undefined;
}

/** PGlite's WebAssembly modules, compiled from its package's files. */
async function compileEngine(): Promise<EngineArtifacts> {
  const dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const compile = (name: string) => WebAssembly.compile(readFileSync(join(dir, name)));
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
    compile('pglite.wasm'),
    compile('initdb.wasm'),
  ]);
  return { pgliteWasmModule, initdbWasmModule };
}

/**
 * A tarball file as PGlite's `loadDataDir` reads it: arrayBuffer() alone (and `type`, which
 * says it is not compressed). A Node Blob hands its bytes back through a stream of 64 KiB
 * chunks joined at the end, which for a migrated store's 42 MB took half a second of CPU.
 */
function tarballOf(path: string): Blob {
  const file = readFileSync(path);
  // A file this size has a buffer of its own; a small one may share Node's pool.
  const whole = file.byteOffset === 0 && file.byteLength === file.buffer.byteLength;
  const bytes = whole ? file.buffer : file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
  return { type: 'application/x-tar', arrayBuffer: async () => bytes } as unknown as Blob;
}

async function serve(
  port: NonNullable<typeof parentPort>,
  { dataDir, loadDataDir, engine: given }: ThreadData,
): Promise<void> {
  let db: PGlite;
  let engine: EngineArtifacts;
  try {
    engine = given ?? (await compileEngine());
    const fresh = !dataDir || !existsSync(join(dataDir, 'PG_VERSION'));
    const options = {
      pgliteWasmModule: engine.pgliteWasmModule,
      initdbWasmModule: engine.initdbWasmModule,
      postgresqlconf: dataDir ? EMBEDDED_SETTINGS : EMBEDDED_SETTINGS + IN_MEMORY_SETTINGS,
      ...(loadDataDir && fresh ? { loadDataDir: tarballOf(loadDataDir) } : {}),
    };
    db = dataDir ? new PGlite({ fs: new PrivateNodeFS(dataDir), ...options }) : new PGlite(options);
    await db.waitReady;
    // The engine's first statement pays for its own warm-up (a few hundred milliseconds on a
    // busy machine): paid here, before the store is ready, it never counts against the time
    // limit of the first statement sent after a restart.
    await db.query('SELECT 1');
  } catch (err) {
    port.postMessage({ failed: err instanceof Error ? err.message : String(err) } satisfies ThreadReply);
    return;
  }
  const prepared = new PreparedStatements(db);
  port.on('message', async (request: ThreadRequest) => {
    try {
      switch (request.op) {
        case 'query': {
          const rows =
            (request.prepared ? await prepared.query(request.sql, request.params) : undefined) ??
            (await db.query(request.sql, request.params)).rows;
          port.postMessage({ id: request.id, rows } satisfies ThreadReply);
          break;
        }
        case 'exec':
          await db.exec(request.sql);
          port.postMessage({ id: request.id, rows: [] } satisfies ThreadReply);
          break;
        case 'copy': {
          // PGlite reads a COPY's input (/dev/blob) as the bytes of the Blob it is given, which
          // it asks for with arrayBuffer() alone: given the caller's buffer itself, it copies
          // nothing, and the buffer goes back to be filled again. A Blob per chunk made three
          // copies of it here, which this thread's collector (with little else to collect) left
          // for hundreds of megabytes in an import.
          const { bytes } = request;
          const blob = { arrayBuffer: async () => bytes } as unknown as Blob;
          await db.query(request.sql, [], { blob });
          port.postMessage({ id: request.id, rows: [], bytes } satisfies ThreadReply, [bytes]);
          break;
        }
        case 'listen':
          await db.listen(request.channel, (payload) =>
            port.postMessage({ notification: { channel: request.channel, payload } } satisfies ThreadReply),
          );
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
  port.postMessage({ ready: true, ...(given ? {} : { engine }) } satisfies ThreadReply);
}

if (parentPort) await serve(parentPort, workerData as ThreadData);
