import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { systemClock } from '../core/clock.ts';
import { csvRow } from '../core/csv.ts';
import type { Database } from '../db/database.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { dealroom } from '../testing/process.ts';
import { openTestStore } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

describe('csvRow', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(csvRow(['a', 1, true, null, 'x,y', 'say "hi"', 'two\nlines'])).toBe(
      'a,1,true,,"x,y","say ""hi""","two\nlines"\r\n',
    );
    expect(csvRow(['=SUM(A1)', '+1', '-2', '@cmd', -3])).toBe("'=SUM(A1),'+1,'-2,'@cmd,-3\r\n");
  });
});

describe('dealroom export', () => {
  let db: Database;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let env: Record<string, string>;
  let roomId: string;

  beforeAll(async () => {
    db = await openTestStore('embedded');
    app = await buildApp({ db, clock: systemClock, appUrl: 'https://x.test', logger: { level: 'silent' } });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const team = await teamWithKey(db, systemClock);
    env = {
      DEALROOM_BASE_URL: base,
      DEALROOM_API_KEY: team.key,
    };
    const room = make.room(team.teamId);
    roomId = room.id as string;
    const doc = make.document(roomId, { name: 'Deck, final.pdf' });
    const link = make.link(roomId, { name: 'Investors' });
    const day = new Date(Date.now() - 86_400_000).toISOString();
    const views = Array.from({ length: 130 }, (_, i) =>
      make.view(
        link.id as string,
        doc.id as string,
        { email: `p${String(i).padStart(3, '0')}@x.co`, name: i === 0 ? '=HYPERLINK("x")' : `Person ${i}` },
        day,
        i,
      ),
    );
    await load(db, systemClock, { dealRooms: [room], documents: [doc], links: [link], views });
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  it('streams every viewer as CSV across pages', async () => {
    const result = await dealroom(['export', 'viewers', '--room', roomId, '--format', 'csv'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,email,name,firstViewedAt,lastViewedAt,totalViews,totalDurationSeconds,documentsViewed,linkName',
    );
    expect(lines).toHaveLength(131);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[1])).size).toBe(130);
    expect(result.stdout).toContain(`'=HYPERLINK(""x"")`);
  });

  it('exports documents, links and analytics as JSON', async () => {
    const docs = JSON.parse(
      (await dealroom(['export', 'documents', '--room', roomId, '--format', 'json'], env)).stdout,
    );
    expect(docs).toEqual([expect.objectContaining({ name: 'Deck, final.pdf', status: 'published' })]);
    const links = JSON.parse(
      (await dealroom(['export', 'links', '--room', roomId, '--format', 'json'], env)).stdout,
    );
    expect(links[0]).toMatchObject({ name: 'Investors', totalClicks: 0 });
    const analytics = JSON.parse(
      (await dealroom(['export', 'analytics', '--room', roomId, '--format', 'json', '--period', '7d'], env))
        .stdout,
    );
    expect(analytics).toMatchObject({ dealRoomId: roomId, period: '7d', totalViews: 130 });
    const csv = (await dealroom(['export', 'analytics', '--room', roomId, '--period', '7d'], env)).stdout
      .trimEnd()
      .split('\r\n');
    expect(csv[0]).toBe('dealRoomId,period,date,views');
    expect(csv).toHaveLength(8);
  });

  it('fails clearly on a bad key, an unknown room or bad arguments', async () => {
    const badKey = await dealroom(['export', 'viewers', '--room', roomId], {
      ...env,
      DEALROOM_API_KEY: 'dr_live_x',
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain('the API answered 401 unauthorized: Invalid API key');
    // With --output, a failed export leaves no file behind (not even a header-only CSV).
    const output = join(tempDir('export'), 'viewers.csv');
    const failed = await dealroom(['export', 'viewers', '--room', roomId, '--output', output], {
      ...env,
      DEALROOM_API_KEY: 'dr_live_x',
    });
    expect(failed.code).toBe(1);
    expect(readdirSync(dirname(output))).toEqual([]);
    const written = await dealroom(['export', 'viewers', '--room', roomId, '--output', output], env);
    expect(written.code).toBe(0);
    expect(readdirSync(dirname(output))).toEqual(['viewers.csv']);
    expect(readFileSync(output, 'utf8').split('\r\n')).toHaveLength(132);
    const missing = await dealroom(['export', 'links', '--room', 'nope'], env);
    expect(missing.stderr).toContain('Deal room not found');
    const usage = await dealroom(['export', 'people', '--room', roomId], env);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('dealroom export viewers|documents|links|analytics');
  });
});
