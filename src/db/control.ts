import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { CONTROL_SOCKET } from './lock.ts';

/**
 * While `dealroom serve` holds the embedded store, other `dealroom` commands (keys, seed,
 * migrate) cannot open it; they send their arguments here and the server runs them on its
 * own connection. The socket lives inside the data folder (0700) with mode 0600, and every
 * call must carry the secret that only the lock file (0600) holds.
 */
export interface CommandResult {
  code: number;
  stdout: string[];
  stderr: string[];
}

export type CommandRunner = (args: string[]) => Promise<CommandResult>;

/** The OS limits a socket path to 107 bytes. */
const MAX_SOCKET_PATH = 107;

/** The control socket's path inside the data folder; undefined when that path is too long. */
export function controlSocketPath(dataDir: string): string | undefined {
  const path = join(dataDir, CONTROL_SOCKET);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : undefined;
}

const SECRET_HEADER = 'x-dealroom-control-secret';

export async function startControlServer(
  socket: string,
  secret: string,
  run: CommandRunner,
): Promise<Server> {
  // Whatever is at the path (a stale socket, or anything else) is ours to replace: the
  // folder is the user's alone.
  rmSync(socket, { force: true, recursive: true });
  const expected = createHash('sha256').update(secret).digest();
  const server = createServer((req, res) => {
    const given = createHash('sha256')
      .update(String(req.headers[SECRET_HEADER] ?? ''))
      .digest();
    if (!timingSafeEqual(given, expected)) {
      res.writeHead(403).end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let args: unknown;
      try {
        args = JSON.parse(Buffer.concat(chunks).toString('utf8')).args;
      } catch {
        args = undefined;
      }
      if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
        res.writeHead(400).end();
        return;
      }
      run(args).then(
        (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: socket, readableAll: false, writableAll: false }, () => resolve());
  });
  chmodSync(socket, 0o600);
  return server;
}

/** Runs a command in the server that holds the store; undefined when none answers. */
export function runInServer(
  socket: string,
  secret: string,
  args: string[],
): Promise<CommandResult | undefined> {
  return new Promise((resolve) => {
    const req = request(
      { socketPath: socket, method: 'POST', path: '/run', headers: { [SECRET_HEADER]: secret } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve(
              res.statusCode === 200
                ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as CommandResult)
                : undefined,
            );
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', () => resolve(undefined));
    req.end(JSON.stringify({ args }));
  });
}
