import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../events/catalogue.ts';
import { recordedEvents, useManagement } from '../testing/management.ts';
import { typeErrors } from '../testing/typecheck.ts';
import { eventEnvelope } from './event-catalogue.ts';

const MINUTE = 60_000;

describe('the event catalogue', () => {
  const s = useManagement('embedded');

  // The client package's payload types are the catalogue's, read by the type checker here (a
  // type-level assertion alone checks nothing when the suite runs): the same 21 types, and every
  // payload the server sends is what the client says it gets.
  it('gives the client package the same event types and payloads, as the type checker reads them', () => {
    const check = (
      claims: string,
    ) => `import type { WebhookEvent, EventType } from '../../packages/client/index.js';
import type { EventPayload, EVENT_TYPES } from '../events/catalogue.ts';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
${claims}
`;
    const claims =
      'export const sameTypes: Same<EventType, (typeof EVENT_TYPES)[number]> = true;\n' +
      'export const serverFitsClient: Same<EventPayload extends WebhookEvent ? true : false, true> = true;';
    expect(typeErrors(check(claims), 'src/http/event-types.check.ts')).toEqual([]);
    const wrong = "export const narrower: Same<EventType, Exclude<EventType, 'view.started'>> = true;";
    expect(typeErrors(check(wrong), 'src/http/event-types.check.ts')).not.toEqual([]);
  });

  it('is published as the webhooks section of the read API document, one POST per event type', async () => {
    const document = (await s.api.get('/v1/openapi.json')).body;
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const body = document.webhooks['view.completed'].post.requestBody.content['application/json'].schema;
    expect(body.properties.type.enum).toEqual(['view.completed']);
    // The view is the shared View shape, named once in the components.
    expect(body.properties.data).toEqual({ $ref: '#/components/schemas/View' });
    expect(Object.keys(document.components.schemas.View.properties)).toEqual([
      'id',
      'dealRoomId',
      'documentId',
      'linkId',
      'viewerId',
      'startedAt',
      'durationSeconds',
    ]);
  });

  it('describes every payload the outbox records, field by field', async () => {
    const admin = s.admin;
    const teamId = (await admin.post('/teams', { name: 'Catalogue' })).body.data.id;
    const roomId = (await admin.post(`/teams/${teamId}/deal-rooms`, { name: 'Room' })).body.data.id;
    await admin.patch(`/deal-rooms/${roomId}`, { description: 'Described' });
    await admin.post(`/deal-rooms/${roomId}/archive`);
    await admin.post(`/deal-rooms/${roomId}/restore`);
    const documentId = (await admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Deck.pdf' })).body.data
      .id;
    await admin.patch(`/documents/${documentId}`, { displayName: 'The deck' });
    await admin.post(`/documents/${documentId}/publish`);
    const linkId = (await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Investors' })).body.data.id;
    await admin.patch(`/links/${linkId}`, { name: 'Lead investors' });
    const viewer = { email: 'ava@example.com', name: 'Ava' };
    await admin.post(`/links/${linkId}/visits`, { viewer });
    const view = (await admin.post(`/links/${linkId}/views`, { documentId, viewer })).body.data;
    await admin.post(`/views/${view.id}/complete`, { durationSeconds: 42 });
    await admin.post(`/links/${linkId}/downloads`, { documentId, viewer });
    await admin.patch(`/documents/${documentId}`, { downloadOverride: false });
    await admin.post(`/links/${linkId}/downloads`, { documentId, viewer });
    s.clock.advance(31 * MINUTE);
    await admin.post(`/links/${linkId}/views`, { documentId, viewer });
    await admin.post(`/links/${linkId}/deactivate`);
    await admin.call('DELETE', `/links/${linkId}`);
    await admin.post(`/documents/${documentId}/unpublish`);
    await admin.call('DELETE', `/documents/${documentId}`);
    await admin.call('DELETE', `/deal-rooms/${roomId}`);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const events = await recordedEvents(s.db);
    const seen = new Set(events.map((e) => e.type));
    // link.expired is raised by the worker when an expiry passes; its data is the Link, as above.
    expect([...EVENT_TYPES].filter((type) => !seen.has(type))).toEqual(['link.expired']);
    for (const event of events) {
      const validate = ajv.compile(eventEnvelope(event.type as (typeof EVENT_TYPES)[number]));
      expect({ type: event.type, valid: validate(event), errors: validate.errors ?? null }).toEqual({
        type: event.type,
        valid: true,
        errors: null,
      });
    }
  });
});
