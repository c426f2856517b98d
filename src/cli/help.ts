import { readFileSync } from 'node:fs';
import {
  DOCUMENTS_USAGE,
  EXPORT_USAGE,
  KEYS_USAGE,
  MIGRATE_USAGE,
  TEAMS_USAGE,
  USERS_USAGE,
  WEBHOOKS_USAGE,
} from './usage.ts';

/** Each command's help: what it does, its options, and what it prints. */
const COMMANDS: Record<string, string> = {
  serve: `dealroom serve [--port N] [--host H] [--demo] [--no-worker] [--no-web]
  Runs the read API (default 127.0.0.1:8080), the management API when ADMIN_TOKEN is set
  (MANAGEMENT_PORT, default 8081), the link pages (WEB_PORT, default 127.0.0.1:3000) and the
  webhook worker.
    --port N, --host H   where the read API listens (default PORT and HOST)
    --demo               load the demo data into an empty database (or renew the demo key)
                         and print a key, the demo team's id and addresses to try
    --no-worker          deliver no webhooks from this process (run dealroom worker instead)
    --no-web             serve no link pages from this process`,
  worker: `dealroom worker [--metrics-port N]
  Delivers webhooks until SIGTERM or SIGINT; run any number of them on one PostgreSQL.
    --metrics-port N     serve /metrics on N (MANAGEMENT_HOST), behind ADMIN_TOKEN`,
  migrate: `${MIGRATE_USAGE}
  Every other command refuses a schema with migrations still to apply; serve applies them as
  it starts only with MIGRATE_ON_START=true (the default for the embedded store and --demo).`,
  import: `dealroom import FILE
  Loads a .json or .ndjson file of teams, rooms, documents, links, visits, views and
  downloads, all or nothing: a bad record names its place and field, and nothing is kept.`,
  seed: `dealroom seed --demo
  Fills an empty database with the demo data and prints a key of the demo team.`,
  keys: KEYS_USAGE,
  teams: TEAMS_USAGE,
  users: `${USERS_USAGE}
  The person opens the address, sets a password and is signed in to the dashboard (APP_URL).`,
  documents: `${DOCUMENTS_USAGE}
  The content is recognised by its bytes; larger than FILE_MAX_BYTES (default 100 MiB) is refused.`,
  webhooks: WEBHOOKS_USAGE,
  export: EXPORT_USAGE,
};

const ENVIRONMENT = `Configuration comes from the environment: DATABASE_URL (postgres://...; unset for the
embedded store under DATA_DIR, default ./data), PORT, HOST, APP_URL, LOG_LEVEL, REDIS_URL,
ADMIN_TOKEN, MANAGEMENT_PORT, WEB_PORT, WEB_HOST, FILE_MAX_BYTES, FILE_MAX_PAGES, FILE_THREAD_MEMORY_MB, FILE_TASK_SECONDS, LINK_PAGES_PER_MINUTE, LINK_VIEWS_PER_MINUTE, LINK_REPORTS_PER_MINUTE, LINK_NEW_VISITORS_PER_HOUR, DASHBOARD_IDLE_HOURS, MIGRATE_ON_START, WEBHOOK_RETRY_BASE_MS, WEBHOOK_ALLOW_PRIVATE_URLS
(.env.example lists every setting).`;

export const USAGE = `usage: dealroom <command> [--help]

${Object.entries(COMMANDS)
  .map(([name, text]) =>
    ['keys', 'teams', 'users', 'documents', 'webhooks', 'migrate'].includes(name)
      ? text
          .split('\n')
          .filter((l) => l.startsWith('dealroom'))
          .join('\n')
      : (text.split('\n')[0] ?? text),
  )
  .map((text) => text.replace(/^/gm, '  '))
  .join('\n')}

dealroom <command> --help tells more of one command; dealroom --version prints the version.

${ENVIRONMENT}`;

/**
 * The help `--help` or `-h` asks for, anywhere in the arguments: of a subcommand (`keys
 * create --help`), of a command, or of all; undefined when none is asked for.
 */
export function helpFor(argv: readonly string[]): string | undefined {
  const asked = argv.findIndex((arg) => arg === '--help' || arg === '-h');
  if (asked === -1 && argv[0] !== 'help') return undefined;
  const words = (argv[0] === 'help' ? argv.slice(1) : argv.slice(0, asked)).filter((w) => !w.startsWith('-'));
  const [command, sub] = words;
  const text = command ? COMMANDS[command] : undefined;
  if (!text) return USAGE;
  if (sub) {
    const lines = text
      .split('\n')
      .filter(
        (line) => line.startsWith(`dealroom ${command} ${sub} `) || line === `dealroom ${command} ${sub}`,
      );
    if (lines.length > 0) return lines.join('\n');
  }
  return text;
}

/** The version of this build, from its package.json. */
export function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
