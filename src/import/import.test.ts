import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { tempDir } from '../testing/temp.ts';
import { datasetRecords } from './dataset.ts';
import { ImportError } from './records.ts';
import { importRecords } from './service.ts';
import { MAX_LINE_BYTES, readImportFile } from './sources.ts';

const dir = tempDir('import');
function file(name: string, text: string): string {
  const path = join(dir, `${randomUUID()}-${name}`);
  writeFileSync(path, text);
  return path;
}

const TABLES = [
  'teams',
  'deal_rooms',
  'documents',
  'links',
  'link_documents',
  'viewers',
  'visits',
  'views',
  'downloads',
];

describe.each(storeKinds())('import (%s store)', (kind) => {
  const s = useApi(kind);

  async function snapshot() {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      counts[table] = (await s.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]?.n ?? 0;
    }
    return counts;
  }

  function sampleData() {
    const team = make.team();
    const room = make.room(team.id as string);
    const doc = make.document(room.id as string);
    const link = make.link(room.id as string, { password: 's3cret', documentIds: [doc.id] });
    const viewer = { email: 'x@y.co', name: 'X' };
    return {
      team,
      room,
      doc,
      link,
      data: {
        teams: [team],
        dealRooms: [room],
        documents: [doc],
        links: [link],
        visits: [make.visit(link.id as string, viewer, '2026-05-01T00:00:00Z')],
        views: [make.view(link.id as string, doc.id as string, viewer, '2026-05-01T00:01:00Z', 30)],
        downloads: [make.download(link.id as string, doc.id as string, viewer, '2026-05-01T00:02:00Z')],
      },
    };
  }

  it('loads a JSON file and an NDJSON file', async () => {
    const json = sampleData();
    const counts = await importRecords(
      s.db,
      s.clock,
      readImportFile(file('a.json', JSON.stringify(json.data, null, 2))),
    );
    expect(counts).toEqual({
      team: 1,
      dealRoom: 1,
      document: 1,
      link: 1,
      visit: 1,
      view: 1,
      download: 1,
    });

    const nd = sampleData();
    const lines = [...datasetRecords(nd.data)]
      .flat()
      .map(({ type, raw }) => JSON.stringify({ type, ...(raw as object) }));
    const ndCounts = await importRecords(
      s.db,
      s.clock,
      readImportFile(file('b.ndjson', `${lines.join('\n')}\n\n`)),
    );
    expect(ndCounts.view).toBe(1);

    const rows = await s.db.query<{ password_hash: string; all_documents: boolean }>(
      'SELECT password_hash, all_documents FROM links WHERE id = $1',
      [nd.link.id],
    );
    expect(rows[0]?.password_hash).toMatch(/^scrypt\$/);
    expect(rows[0]?.password_hash).not.toContain('s3cret');
    expect(rows[0]?.all_documents).toBe(false);
    const selection = await s.db.query('SELECT document_id FROM link_documents WHERE link_id = $1', [
      nd.link.id,
    ]);
    expect(selection).toEqual([{ document_id: nd.doc.id }]);
  });

  it('writes in batches and keeps every figure exact', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const doc = make.document(room.id as string);
    const link = make.link(room.id as string);
    const views = Array.from({ length: 4500 }, (_, i) =>
      make.view(
        link.id as string,
        doc.id as string,
        { visitorId: `v${i % 1500}` },
        '2026-05-10T00:00:00Z',
        i % 7,
      ),
    );
    await load(s.db, s.clock, { dealRooms: [room], documents: [doc], links: [link], views });
    const detail = (await s.api.get(`/v1/deal-rooms/${room.id}`, key)).body.data;
    expect(detail).toMatchObject({
      totalViews: 4500,
      uniqueViewers: 1500,
      avgViewDurationSeconds: 3,
    });
  });

  const bad: [string, (d: ReturnType<typeof sampleData>['data']) => void, string][] = [
    [
      'a missing field',
      (d) => {
        delete (d.dealRooms[0] as Record<string, unknown>).name;
      },
      'dealRooms[0], field "name": must be a string',
    ],
    [
      'a bad uuid',
      (d) => {
        d.documents[0]!.id = 'nope';
      },
      'documents[0], field "id": must be a UUID',
    ],
    [
      'a bad status',
      (d) => {
        d.documents[0]!.status = 'deleted';
      },
      'documents[0], field "status": must be one of: draft, published, archived',
    ],
    [
      'a bad source type',
      (d) => {
        d.documents[0]!.sourceType = 'ftp';
      },
      'documents[0], field "sourceType"',
    ],
    [
      'a negative duration',
      (d) => {
        d.views[0]!.durationSeconds = -1;
      },
      'views[0], field "durationSeconds": must be an integer >= 0',
    ],
    [
      'a bad timestamp',
      (d) => {
        d.visits[0]!.at = '2026-05-01';
      },
      'visits[0], field "at": must be an ISO 8601 timestamp',
    ],
    [
      'a future event',
      (d) => {
        d.views[0]!.startedAt = '2026-05-20T12:06:00Z';
      },
      'views[0], field "startedAt": is more than five minutes in the future',
    ],
    [
      'a room created before 2000',
      (d) => {
        d.dealRooms[0]!.createdAt = '1000-01-01T00:00:00Z';
      },
      'dealRooms[0], field "createdAt": must not be before 2000-01-01T00:00:00Z',
    ],
    [
      'an event in year 1',
      (d) => {
        d.visits[0]!.at = '0001-06-01T00:00:00Z';
      },
      'visits[0], field "at": must not be before 2000-01-01T00:00:00Z',
    ],
    [
      'a link expiring before 2000',
      (d) => {
        (d.links[0] as Record<string, unknown>).expiresAt = '1999-12-31T23:59:59.999Z';
      },
      'links[0], field "expiresAt": must not be before 2000-01-01T00:00:00Z',
    ],
    [
      'a viewer without identity',
      (d) => {
        d.views[0]!.viewer = { name: 'x' };
      },
      'views[0], field "viewer": needs a non-empty "email" or a "visitorId"',
    ],
    [
      'an unknown reference',
      (d) => {
        d.views[0]!.linkId = randomUUID();
      },
      'views[0], field "linkId": refers to no link',
    ],
    [
      'a duplicate id',
      (d) => {
        d.links.push({ ...d.links[0]!, shortId: 'other' });
      },
      'links[1], field "id": repeats the link id of links[0]',
    ],
    [
      'a duplicate shortId',
      (d) => {
        d.links.push({ ...d.links[0]!, id: randomUUID() });
      },
      'links[1], field "shortId": is already used by the link at links[0]',
    ],
    [
      'a document of another room',
      (d) => {
        const other = make.room(d.teams[0]!.id as string);
        const doc = make.document(other.id as string);
        d.dealRooms.push(other);
        d.documents.push(doc);
        d.views[0]!.documentId = doc.id;
      },
      'views[0], field "documentId": belongs to another deal room',
    ],
  ];

  it.each(bad)('refuses %s, naming the record and field, and changes nothing', async (_, spoil, message) => {
    const before = await snapshot();
    const { data } = sampleData();
    spoil(data);
    const error = await importRecords(s.db, s.clock, datasetRecords(data)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toContain(message);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts an event up to five minutes ahead, and rooms, documents and links with any dates', async () => {
    const { data } = sampleData();
    data.views[0]!.startedAt = '2026-05-20T12:05:00Z';
    data.dealRooms[0]!.createdAt = '2027-01-01T00:00:00Z';
    (data.links[0] as Record<string, unknown>).expiresAt = '2030-01-01T00:00:00Z';
    await expect(importRecords(s.db, s.clock, datasetRecords(data))).resolves.toMatchObject({ view: 1 });
  });

  it.runIf(kind === 'postgres')(
    "waits for its stored viewers' other writers, and counts their documents with every view they committed",
    async () => {
      const { teamId, key } = await teamWithKey(s.db, s.clock);
      const room = make.room(teamId);
      const [first, second] = [make.document(room.id as string), make.document(room.id as string)];
      const link = make.link(room.id as string);
      const viewer = { email: 'stored@example.com', name: 'Stored' };
      const at = '2026-05-10T00:00:00Z';
      await load(s.db, s.clock, {
        dealRooms: [room],
        documents: [first, second],
        links: [link],
        views: [make.view(link.id as string, first.id as string, viewer, at)],
      });
      const [stored] = await s.db.query<{ id: string }>('SELECT id FROM viewers WHERE deal_room_id = $1', [
        room.id,
      ]);
      // Another writer holds the stored viewer, as every writer of a viewer's figures does, and
      // commits a view of the second document while the import runs.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const other = s.db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM viewers WHERE id = $1 FOR UPDATE', [stored?.id]);
        locked();
        await held;
        await tx.query(
          `INSERT INTO views (id, deal_room_id, document_id, link_id, viewer_id, viewer_name, started_at)
           VALUES ($1, $2, $3, $4, $5, '', $6)`,
          [randomUUID(), room.id, second.id, link.id, stored?.id, at],
        );
      });
      await lockTaken;
      const imported = load(s.db, s.clock, {
        views: [make.view(link.id as string, second.id as string, viewer, '2026-05-11T00:00:00Z')],
      });
      // Once the import waits for that viewer, the other writer commits.
      for (let waited = 0; ; waited += 20) {
        const [waiting] = await s.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if ((waiting?.n ?? 0) > 0) break;
        if (waited > 30_000) throw new Error('the import never waited for the viewer');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      release();
      await other;
      await imported;
      // The import counted the viewer once it held them: the second document was no longer new.
      const viewers = (await s.api.get(`/v1/deal-rooms/${room.id}/viewers`, key)).body.data;
      expect(viewers).toMatchObject([{ totalViews: 2, documentsViewed: 1 }]);
    },
  );

  it('refuses ids that already exist and rolls back a batch already written', async () => {
    const first = sampleData();
    await load(s.db, s.clock, first.data);
    const before = await snapshot();
    const second = sampleData();
    const views = Array.from({ length: 2500 }, () => second.data.views[0]!);
    const error = await importRecords(
      s.db,
      s.clock,
      datasetRecords({
        ...second.data,
        views,
        downloads: [],
        teams: [...second.data.teams, first.team],
      }),
    ).catch((err: unknown) => err);
    expect((error as Error).message).toContain('a team with this id already exists');
    expect(await snapshot()).toEqual(before);

    const late = sampleData();
    late.data.views.push(...Array.from({ length: 2500 }, () => late.data.views[0]!));
    late.data.downloads[0]!.at = 'not a time';
    await expect(importRecords(s.db, s.clock, datasetRecords(late.data))).rejects.toThrow(
      'downloads[0], field "at"',
    );
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['broken JSON', 'x.json', '{"teams": [{"id": ', 'teams[0]: is not valid JSON'],
    ['an empty JSON file', 'x.json', '', 'the file: is not valid JSON'],
    ['a JSON file that is not an object', 'x.json', '[1, 2]', 'the file: must be a JSON object'],
    ['an unknown section', 'x.json', '{"people": []}', 'section "people"'],
    ['a section that is not an array', 'x.json', '{"teams": {}}', 'section "teams": must be an array'],
    ['an NDJSON line that is not JSON', 'x.ndjson', '{"type":"team","id":"1"\n', 'line 1: is not valid JSON'],
    ['an NDJSON line of unknown type', 'x.ndjson', '\n{"type":"person"}\n', 'line 2, field "type"'],
  ])('refuses %s', async (_, name, text, message) => {
    const before = await snapshot();
    await expect(importRecords(s.db, s.clock, readImportFile(file(name, text)))).rejects.toThrow(message);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['x.ndjson', (records: string[]) => `${records.join('\n')}\n{"type":\n`, 'line 2, field "name"'],
    ['x.json', (records: string[]) => `{"teams": [${records.join(',')}, {"id": `, 'teams[1], field "name"'],
  ])('reports the first bad record of %s, not a later one read with it', async (name, text, message) => {
    const good = JSON.stringify({ type: 'team', id: randomUUID(), name: 'ok' });
    const nameless = JSON.stringify({ type: 'team', id: randomUUID() });
    const path = file(name, text([good, nameless, good]));
    await expect(importRecords(s.db, s.clock, readImportFile(path))).rejects.toThrow(message);
  });

  it('refuses a file that is neither .json nor .ndjson', () => {
    expect(() => readImportFile('data.csv')).toThrow('must end in .json or .ndjson');
  });

  it('refuses an NDJSON line over the byte limit without holding it, and leaves the store as it was', async () => {
    const before = await snapshot();
    const team = JSON.stringify({ type: 'team', id: randomUUID(), name: 'ok' });
    const huge = `{"type":"team","id":"${randomUUID()}","name":"${'x'.repeat(MAX_LINE_BYTES + 10)}"}`;
    const path = file('huge.ndjson', `${team}\n${huge}\n${team}\n`);
    await expect(importRecords(s.db, s.clock, readImportFile(path))).rejects.toThrow(
      `line 2: is longer than ${MAX_LINE_BYTES} bytes`,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('turns a read error into an import error naming the line', async () => {
    const folder = join(tempDir('folder'), 'looks-like.ndjson');
    mkdirSync(folder);
    await expect(importRecords(s.db, s.clock, readImportFile(folder))).rejects.toThrow(
      'line 1: could not be read (EISDIR)',
    );
  });
});
