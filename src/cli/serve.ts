import { parseArgs } from 'node:util';
import { type Config, parsePort } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { DEMO_LINK_SHORT_ID, DEMO_TEAM_ID } from '../seed/demo.ts';
import { startServer } from '../server.ts';
import { runCaptured } from './commands.ts';
import { UsageError } from './context.ts';
import { createLogger, logCrashes } from './logger.ts';

/**
 * `dealroom serve`: the whole service (server.ts) until SIGTERM or SIGINT, then it stops
 * taking connections, lets requests in flight finish, and closes the store. Resolves with
 * the exit code.
 */
export async function serve(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      demo: { type: 'boolean' },
      'no-worker': { type: 'boolean' },
      'no-web': { type: 'boolean' },
    },
  });
  const problems: string[] = [];
  const port = parsePort(values.port, config.port, '--port', problems);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const logger = createLogger(config.logLevel);
  logCrashes(logger);

  const server = await startServer(config, {
    port,
    host: values.host ?? config.host,
    logger,
    demo: values.demo,
    worker: !values['no-worker'],
    web: !values['no-web'],
    runCommand: (db, commandArgs) => runCaptured({ config, db, clock: systemClock }, commandArgs),
  });
  if (server.managementApi) {
    console.log(`Management API listening on ${server.managementApi} (Authorization: Bearer $ADMIN_TOKEN)`);
  }
  if (server.webApp)
    console.log(
      `Link pages and the dashboard listening on ${server.webApp} (share links open at ${config.appUrl}/v/...)`,
    );
  console.log(`Deal Room Analytics API listening on ${server.readApi} (${server.db.kind} store)`);
  if (server.demoKey)
    printDemo(
      server.readApi,
      server.demoKey,
      server.webApp ? `${config.appUrl}/v/${DEMO_LINK_SHORT_ID}` : undefined,
      server.webApp && server.demoUser ? { url: `${config.appUrl}/login`, ...server.demoUser } : undefined,
    );

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'shutting down: finishing requests in flight');
  await server.close();
  logger.info('stopped');
  return 0;
}

function printDemo(
  base: string,
  key: string,
  demoLink: string | undefined,
  dashboard: { url: string; email: string; password: string } | undefined,
): void {
  console.log(`
Demo data is loaded. Your API key (shown once; a new one is made at each start with --demo):

  ${key}

The demo team's id (for the management API and dealroom keys|webhooks --team): ${DEMO_TEAM_ID}

Try:
  curl -H "Authorization: Bearer ${key}" ${base}/v1/deal-rooms
${
  demoLink
    ? `
Open a demo share link in your browser, read a document, then see your visit and view in the API:
  ${demoLink}
`
    : ''
}${
  dashboard
    ? `
The team's dashboard (a new password at each start with --demo):
  ${dashboard.url}
  email ${dashboard.email}, password ${dashboard.password}
`
    : ''
}`);
}
