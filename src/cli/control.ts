import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * While `dealroom serve` holds the embedded store, other `dealroom` commands (keys,
 * import, seed, migrate) cannot open it; they send their arguments here and the server
 * runs them on its own connection. The socket is a file only the user can reach.
 */
export interface CommandResult {
  code: number;
  stdout: string[];
  stderr: string[];
}

export type CommandRunner = (args: string[]) => Promise<CommandResult>;

/** A short socket path (the OS limits them to ~100 bytes) derived from the data folder. */
export function controlSocketPath(dataDir: string): string {
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  return join(tmpdir(), `dealroom-${digest}.sock`);
}

export async function startControlServer(socket: string, run: CommandRunner): Promise<Server> {
  rmSync(socket, { force: true });
  const server = createServer((req, res) => {
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
  return server;
}

/** Runs a command in the server that holds the store; undefined when none answers. */
export function runInServer(socket: string, args: string[]): Promise<CommandResult | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, method: 'POST', path: '/run' }, (res) => {
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
    });
    req.on('error', () => resolve(undefined));
    req.end(JSON.stringify({ args }));
  });
}
