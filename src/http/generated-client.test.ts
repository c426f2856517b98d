import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { testApp } from '../testing/app.ts';
import { managementClient } from '../testing/management.ts';
import { openTestStore } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';
import { checkerHost } from '../testing/typecheck.ts';

/**
 * Both served OpenAPI documents go through openapi-typescript, and a small program calling
 * every operation with typed values must type-check against what it generated (`page: 2`
 * included); a program with a mistyped value must not.
 */
const ID = '6f1c2b7e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';

const PROGRAM = `
import type { operations as Read } from './read.ts';
import type { operations as Manage } from './management.ts';

type Params<O> = O extends { parameters: infer P } ? P : never;
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
declare function read<K extends keyof Read>(operation: K, parameters: Params<Read[K]>): void;
declare function manage<K extends keyof Manage>(operation: K, parameters: Params<Manage[K]>, body?: Body<Manage[K]>): void;
const id = '${ID}';

read('listDealRooms', { query: { page: 2, per_page: 50, status: 'archived' } });
read('getDealRoom', { path: { id } });
read('listDocuments', { path: { id }, query: { page: 1, per_page: 100 } });
read('listLinks', { path: { id }, query: { page: 3 } });
read('listViewers', { path: { id }, query: { per_page: 20 } });
read('getAnalytics', { path: { id }, query: { period: '90d' } });

manage('createTeam', {}, { name: 'Acme' });
manage('createApiKey', { path: { teamId: id } }, { name: 'crm' });
manage('listApiKeys', { path: { teamId: id } });
manage('revokeApiKey', { path: { id } });
manage('createDealRoom', { path: { teamId: id } }, { name: 'Falcon', description: 'Series B' });
manage('updateDealRoom', { path: { id } }, { name: 'Falcon II' });
manage('archiveDealRoom', { path: { id } });
manage('restoreDealRoom', { path: { id } });
manage('deleteDealRoom', { path: { id } });
manage('createDocument', { path: { id } }, { name: 'Deck.pdf', sourceType: 'upload', pageCount: 12, status: 'published', downloadOverride: null });
manage('updateDocument', { path: { id } }, { downloadOverride: false, position: 2 });
manage('publishDocument', { path: { id } });
manage('unpublishDocument', { path: { id } });
manage('deleteDocument', { path: { id } });
manage('createLink', { path: { id } }, { name: 'Investors', password: 'long enough', allowDownload: false, documentIds: [id], expiresAt: null });
manage('updateLink', { path: { id } }, { enabled: true, password: null });
manage('deactivateLink', { path: { id } });
manage('deleteLink', { path: { id } });
manage('recordVisit', { path: { id } }, { viewer: { email: 'a@b.co' } });
manage('startView', { path: { id } }, { documentId: id, viewer: { visitorId: 'v1' }, startedAt: '2026-05-20T12:00:00.000Z' });
manage('completeView', { path: { id } }, { durationSeconds: 42 });
manage('recordDownload', { path: { id } }, { documentId: id, viewer: { email: 'a@b.co', name: 'Ann' } });
manage('createWebhookEndpoint', { path: { teamId: id } }, { url: 'https://hooks.example.com', events: ['view.started'] });
manage('listWebhookEndpoints', { path: { teamId: id } });
manage('getWebhookEndpoint', { path: { id } });
manage('updateWebhookEndpoint', { path: { id } }, { enabled: false, events: null });
manage('deleteWebhookEndpoint', { path: { id } });
manage('rotateWebhookSecret', { path: { id } });
manage('listWebhookAttempts', { path: { id }, query: { page: 2, per_page: 100 } });
manage('listDeadLetters', { path: { teamId: id } });
manage('replayDeadLetter', { path: { id } });

// Answers are typed too.
declare const room: Read['getDealRoom']['responses'][200]['content']['application/json'];
const views: number = room.data.totalViews;
declare const view: Manage['startView']['responses'][201]['content']['application/json'];
const viewId: string = view.data.id;
export { views, viewId };
`;

describe('generated clients', () => {
  it('openapi-typescript types every operation of both documents', async () => {
    const db = await openTestStore('embedded');
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    const api = await testApp(db, clock);
    const admin = await managementClient(db, clock);
    try {
      const dir = tempDir('generated-client');
      mkdirSync(dir, { recursive: true });
      const readDocument = (await api.get('/v1/openapi.json')).body;
      const managementDocument = (await admin.get('/openapi.json')).body;
      // What openapi-typescript made, as files beside the program: given to the checker, which
      // reads every other file once per process.
      const generated = new Map([
        [join(dir, 'read.ts'), astToString(await openapiTS(readDocument))],
        [join(dir, 'management.ts'), astToString(await openapiTS(managementDocument))],
      ]);

      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
      };
      const check = (program: string) => {
        const file = join(dir, 'program.ts');
        const host = checkerHost(options, new Map([...generated, [file, program]]));
        return ts
          .getPreEmitDiagnostics(ts.createProgram([file], options, host))
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      };
      expect(check(PROGRAM)).toEqual([]);
      // The check can fail: a page given as a string, a body field of the wrong type.
      expect(check(PROGRAM.replace('page: 2,', "page: '2',"))).not.toEqual([]);
      expect(check(PROGRAM.replace('durationSeconds: 42', "durationSeconds: '42'"))).not.toEqual([]);
    } finally {
      await admin.app.close();
      await api.app.close();
      await db.close();
    }
  }, 60_000);
});
