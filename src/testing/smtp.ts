import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** When this process heard of it (Date.now()). */
  at: number;
}

/** A real SMTP server in a process of its own on loopback; what it receives, and how to stop it. */
export async function startSmtpServer(options: { acceptDelayMs?: number } = {}): Promise<{
  url: string;
  received: ReceivedMail[];
  stop(): Promise<void>;
}> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./smtp-server.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SMTP_ACCEPT_DELAY_MS: String(options.acceptDelayMs ?? 0) },
  });
  const received: ReceivedMail[] = [];
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the SMTP server exited with ${code}`)));
    lines.on('line', (line) => {
      const value = JSON.parse(line) as { port?: number } & ReceivedMail;
      if (value.port) resolve(value.port);
      else received.push({ ...value, at: Date.now() });
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
