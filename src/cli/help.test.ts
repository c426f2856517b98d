import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dealroom } from '../testing/process.ts';
import { freshStoreEnv } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Each command and subcommand, and a line its help must hold. */
const HELP: [string[], string][] = [
  [['serve'], 'dealroom serve [--port N] [--host H] [--demo] [--no-worker] [--no-web]'],
  [['worker'], 'dealroom worker [--metrics-port N]'],
  [['migrate'], 'dealroom migrate --dry-run'],
  [['migrate', 'status'], 'dealroom migrate status'],
  [['import'], 'dealroom import FILE'],
  [['seed'], 'dealroom seed --demo'],
  [['export'], 'dealroom export viewers|documents|links|analytics --room ID'],
  [['keys'], 'dealroom keys revoke KEY_ID'],
  [['keys', 'create'], 'dealroom keys create --team TEAM_ID [--name NAME]'],
  [['keys', 'list'], 'dealroom keys list --team TEAM_ID'],
  [['keys', 'revoke'], 'dealroom keys revoke KEY_ID'],
  [['teams'], 'dealroom teams list'],
  [['teams', 'create'], 'dealroom teams create NAME'],
  [['teams', 'list'], 'dealroom teams list'],
  [['users'], 'dealroom users create --team TEAM_ID --email EMAIL'],
  [['users', 'create'], 'dealroom users create --team TEAM_ID --email EMAIL'],
  [['users', 'list'], 'dealroom users list --team TEAM_ID'],
  [['documents'], 'dealroom documents upload DOC_ID FILE'],
  [['documents', 'upload'], 'dealroom documents upload DOC_ID FILE'],
  [['webhooks'], 'dealroom webhooks add --team TEAM_ID --url URL'],
  [['webhooks', 'add'], 'dealroom webhooks add --team TEAM_ID --url URL'],
  [['webhooks', 'replay'], 'dealroom webhooks replay'],
];

describe('dealroom --help and --version', { timeout: 120_000 }, () => {
  it('answers --help and -h for every command and subcommand, exit 0, touching nothing', async () => {
    // A data folder that must stay unmade, and a configuration that would be refused.
    const dataDir = join(tempDir('help'), 'never-made');
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', PORT: 'not-a-port' };
    const runs = await Promise.all(
      HELP.flatMap(([words, line]) =>
        ['--help', '-h'].map(async (flag) => ({
          words,
          flag,
          line,
          run: await dealroom([...words, flag], env),
        })),
      ),
    );
    for (const { words, flag, line, run } of runs) {
      expect({ words, flag, code: run.code, stderr: run.stderr }).toEqual({
        words,
        flag,
        code: 0,
        stderr: '',
      });
      expect(run.stdout, `${words.join(' ')} ${flag}`).toContain(line);
    }
    const all = await dealroom(['--help'], env);
    expect(all.code).toBe(0);
    for (const [, line] of HELP) expect(all.stdout).toContain(line.split(' [')[0]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('prints the version', async () => {
    for (const flag of ['--version', '-v']) {
      const run = await dealroom([flag], {});
      expect(run).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('creates and lists teams, so a team id can be found, and invites its first owner', async () => {
    const { env, drop } = await freshStoreEnv('embedded', { migrated: true });
    try {
      const created = await dealroom(['teams', 'create', 'Acme', 'Capital'], env);
      expect(created.code).toBe(0);
      const id = created.stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const listed = await dealroom(['teams', 'list'], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n')[0]).toBe('ID\tNAME\tCREATED');
      expect(listed.stdout).toMatch(new RegExp(`^${id}\\tAcme Capital\\t\\d{4}-\\d{2}-\\d{2}T`, 'm'));
      // The team's first owner: an invitation address under APP_URL, and the user listed as invited.
      const invited = await dealroom(['users', 'create', '--team', id, '--email', 'Owner@Acme.example'], {
        ...env,
        APP_URL: 'https://rooms.acme.example',
      });
      expect(invited.code).toBe(0);
      expect(invited.stdout).toMatch(/^https:\/\/rooms\.acme\.example\/invite\/[A-Za-z0-9_-]{43}\n$/);
      const users = await dealroom(['users', 'list', '--team', id], env);
      expect(users.stdout).toMatch(/\towner@acme\.example\towner\tinvited\t/);
      const again = await dealroom(
        ['users', 'create', '--team', id, '--email', 'x@acme.example', '--role', 'boss'],
        env,
      );
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('--role must be owner, admin or member');
      const refused = await dealroom(['teams', 'create'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("give the team's name");
    } finally {
      await drop();
    }
  });
});
