import { afterAll, beforeAll } from 'vitest';
import { type Clock, ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { buildManagementApp } from '../management/app.ts';
import type { StartView } from '../tracking/view-starts.ts';
import { writeContexts } from '../write/context.ts';
import { TEST_APP_URL, testApp } from './app.ts';
import { openTestStore, type StoreKind } from './stores.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface ManagementSuite {
  db: Database;
  clock: ManualClock;
  metrics: ReturnType<typeof createMetrics>;
  /** The read API, as its tests use it. */
  api: Awaited<ReturnType<typeof testApp>>;
  admin: Awaited<ReturnType<typeof managementClient>>;
}

/** A store, the read API and the management API on it, for one describe block. */
export function useManagement(
  kind: StoreKind,
  now = '2026-05-20T12:00:00.000Z',
  options: ManagementOptions = {},
): ManagementSuite {
  const suite = { clock: new ManualClock(now) } as ManagementSuite;
  beforeAll(async () => {
    suite.db = await openTestStore(kind);
    suite.metrics = createMetrics();
    suite.api = await testApp(suite.db, suite.clock);
    suite.admin = await managementClient(suite.db, suite.clock, suite.metrics, options);
  });
  afterAll(async () => {
    await suite.admin?.app.close();
    await suite.api?.app.close();
    await suite.db?.close();
  });
  return suite;
}

/** How a test's management API differs from the service's defaults. */
export interface ManagementOptions {
  allowPrivateUrls?: boolean;
  startView?: StartView;
  fileMaxBytes?: number;
  mailConfigured?: boolean;
}

/** `PUT /documents/{id}/file` with the bytes and the Content-Type (the service goes by the content). */
export function putFile(
  admin: ManagementSuite['admin'],
  documentId: string,
  bytes: Uint8Array,
  type = 'application/octet-stream',
) {
  return admin.app.inject({
    method: 'PUT',
    url: `/documents/${documentId}/file`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type },
    payload: Buffer.from(bytes),
  });
}

export async function managementClient(
  db: Database,
  clock: Clock,
  metrics = createMetrics(),
  options: ManagementOptions = {},
) {
  const app = await buildManagementApp({
    startView: options.startView,
    db,
    clock,
    adminToken: ADMIN_TOKEN,
    fileMaxBytes: options.fileMaxBytes,
    logger: { level: 'silent' },
    metrics,
    writeContext: writeContexts({
      db,
      clock,
      appUrl: TEST_APP_URL,
      allowPrivateUrls: options.allowPrivateUrls ?? true,
      mailConfigured: options.mailConfigured,
      metrics,
    }),
  });
  await app.ready();
  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: parsed(response.body, response.headers['content-type']) as any,
    };
  };
  return {
    app,
    call,
    post: (url: string, body?: unknown, headers?: Record<string, string>) => call('POST', url, body, headers),
    patch: (url: string, body: unknown) => call('PATCH', url, body),
    get: (url: string) => call('GET', url),
    del: (url: string) => call('DELETE', url),
  };
}

/** The events recorded so far, oldest first (by id: UUIDv7 ids are ordered by time). */
export async function recordedEvents(db: Database, after = '00000000-0000-0000-0000-000000000000') {
  const rows = await db.query<{
    payload: { id: string; type: string; teamId: string; data: Record<string, unknown> };
  }>('SELECT payload FROM webhook_events WHERE id > $1 ORDER BY created_at, id', [after]);
  return rows.map((row) => row.payload);
}

function parsed(text: string, type: unknown): unknown {
  if (!text) return undefined;
  return String(type).startsWith('application/json') ? JSON.parse(text) : text;
}

/** Through the management API: a team with a read key, a room, a published document and a link. */
export async function managedRoom(
  admin: ManagementSuite['admin'],
  names: { team: string; room: string; link: string },
) {
  const teamId = (await admin.post('/teams', { name: names.team })).body.data.id as string;
  const key = (await admin.post(`/teams/${teamId}/keys`, { name: 'crm' })).body.data.key as string;
  const roomId = (await admin.post(`/teams/${teamId}/deal-rooms`, { name: names.room })).body.data
    .id as string;
  const documentId = (
    await admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Deck.pdf', status: 'published' })
  ).body.data.id as string;
  const linkId = (await admin.post(`/deal-rooms/${roomId}/links`, { name: names.link })).body.data
    .id as string;
  return { teamId, key, roomId, documentId, linkId };
}

/**
 * The management API of a running service over HTTP (the browser suites): JSON, or a PDF's
 * bytes for a file; anything but a 2xx fails the test.
 */
export function managementOver(base: () => string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ data: Record<string, unknown> }> => {
    const bytes = body instanceof Uint8Array;
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(bytes
          ? { 'content-type': 'application/pdf' }
          : body
            ? { 'content-type': 'application/json' }
            : {}),
      },
      body: bytes ? Buffer.from(body) : body ? JSON.stringify(body) : undefined,
    });
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}`);
    return (await response.json()) as { data: Record<string, unknown> };
  };
}
