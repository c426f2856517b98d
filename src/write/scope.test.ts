import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors.ts';
import { createDealRoom, deleteDealRoom, setDealRoomStatus, updateDealRoom } from '../deal-rooms/commands.ts';
import {
  createDocument,
  deleteDocument,
  setDocumentPublished,
  updateDocument,
} from '../documents/commands.ts';
import { createApiKey, revokeApiKey } from '../keys/commands.ts';
import { createLink, deactivateLink, deleteLink, updateLink } from '../links/commands.ts';
import { managedRoom, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';
import { completeView, recordDownload, recordVisit } from '../tracking/commands.ts';
import { changeRole, inviteUser, removeUser } from '../users/commands.ts';
import {
  createEndpoint,
  deleteEndpoint,
  replayEndpointDeadLetters,
  retirePreviousSecrets,
  rotateEndpointSecret,
  updateEndpoint,
} from '../webhooks/commands.ts';
import { writeContexts } from './context.ts';

/** Every row of the tables a write may change, as text: what "nothing changed" compares. */
async function everything(db: ReturnType<typeof useManagement>['db']): Promise<string> {
  const tables = [
    'teams',
    'deal_rooms',
    'documents',
    'links',
    'api_keys',
    'webhook_endpoints',
    'users',
    'visits',
    'views',
    'downloads',
    'webhook_events',
    'audit_log',
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await db.query(`SELECT to_jsonb(t)::text AS row FROM ${table} t ORDER BY 1`);
    parts.push(`${table}: ${JSON.stringify(rows)}`);
  }
  return parts.join('\n');
}

describe.each(storeKinds())('a write scoped to one team (%s store)', (kind) => {
  const s = useManagement(kind);

  it("finds nothing of another team's, whichever domain function is called with its ids", async () => {
    const ours = await managedRoom(s.admin, { team: 'Ours', room: 'Our room', link: 'Our link' });
    const theirs = await managedRoom(s.admin, { team: 'Theirs', room: 'Their room', link: 'Their link' });
    const keyId = (await s.admin.get(`/teams/${theirs.teamId}/keys`)).body.data[0].id as string;
    const endpointId = (
      await s.admin.post(`/teams/${theirs.teamId}/webhook-endpoints`, { url: 'https://hooks.example.com/a' })
    ).body.data.id as string;
    const viewer = { email: 'reader@example.com' };
    const viewId = (
      await s.admin.post(`/links/${theirs.linkId}/views`, { documentId: theirs.documentId, viewer })
    ).body.data.id as string;
    const invited = await inviteUser(writeContexts({ db: s.db, clock: s.clock, appUrl: '' })(), {
      teamId: theirs.teamId,
      email: 'owner@theirs.example',
      role: 'owner',
    });

    const ctx = writeContexts({ db: s.db, clock: s.clock, appUrl: '', allowPrivateUrls: true })({
      actor: { kind: 'user', teamId: ours.teamId, userId: invited.userId, email: 'someone@ours.example' },
      teamId: ours.teamId,
      audit: () => ({ action: 'tried', subject: { type: 'any' } }),
    });
    const before = await everything(s.db);
    const attempts: [string, () => Promise<unknown>][] = [
      ['createDealRoom', () => createDealRoom(ctx, theirs.teamId, { name: 'Mine now' })],
      ['updateDealRoom', () => updateDealRoom(ctx, theirs.roomId, { name: 'Renamed' })],
      ['setDealRoomStatus', () => setDealRoomStatus(ctx, theirs.roomId, 'archived')],
      ['deleteDealRoom', () => deleteDealRoom(ctx, theirs.roomId)],
      ['createDocument', () => createDocument(ctx, theirs.roomId, { name: 'Planted.pdf' })],
      ['updateDocument', () => updateDocument(ctx, theirs.documentId, { name: 'Renamed.pdf' })],
      ['setDocumentPublished', () => setDocumentPublished(ctx, theirs.documentId, false)],
      ['deleteDocument', () => deleteDocument(ctx, theirs.documentId)],
      ['createLink', () => createLink(ctx, theirs.roomId, { name: 'Mine' })],
      ['updateLink', () => updateLink(ctx, theirs.linkId, { allowDownload: false })],
      ['deactivateLink', () => deactivateLink(ctx, theirs.linkId)],
      ['deleteLink', () => deleteLink(ctx, theirs.linkId)],
      ['createApiKey', () => createApiKey(ctx, { teamId: theirs.teamId, name: 'Mine' })],
      ['revokeApiKey', () => revokeApiKey(ctx, keyId)],
      ['createEndpoint', () => createEndpoint(ctx, theirs.teamId, { url: 'https://hooks.example.com/b' })],
      ['updateEndpoint', () => updateEndpoint(ctx, endpointId, { enabled: false })],
      ['rotateEndpointSecret', () => rotateEndpointSecret(ctx, endpointId)],
      ['retirePreviousSecrets', () => retirePreviousSecrets(ctx, endpointId)],
      ['replayEndpointDeadLetters', () => replayEndpointDeadLetters(ctx, endpointId)],
      ['deleteEndpoint', () => deleteEndpoint(ctx, endpointId)],
      [
        'inviteUser',
        () => inviteUser(ctx, { teamId: theirs.teamId, email: 'new@theirs.example', role: 'admin' }),
      ],
      ['changeRole', () => changeRole(ctx, invited.userId, 'member')],
      ['removeUser', () => removeUser(ctx, invited.userId)],
      ['recordVisit', () => recordVisit(ctx, theirs.linkId, { viewer })],
      [
        'recordDownload',
        () =>
          recordDownload(ctx, theirs.linkId, {
            documentId: theirs.documentId,
            viewer,
          }),
      ],
      ['completeView', () => completeView(ctx, viewId, { durationSeconds: 30 })],
    ];
    for (const [name, attempt] of attempts) {
      const refused = await attempt().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused, name).toBeInstanceOf(ApiError);
      expect((refused as ApiError).code, name).toBe('not_found');
    }
    expect(await everything(s.db)).toBe(before);

    // The same context changes its own team's, with the audit entry in the same transaction.
    await updateDealRoom(ctx, ours.roomId, { name: 'Renamed' });
    const [entry] = await s.db.query<{ action: string }>('SELECT action FROM audit_log WHERE team_id = $1', [
      ours.teamId,
    ]);
    expect(entry?.action).toBe('tried');
  });
});
