import { randomBytes } from 'node:crypto';
import { applyRoomChange } from '../aggregates/contents.ts';
import { entryKeys } from '../core/email-entries.ts';
import { ApiError, fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import { hashPassword } from '../core/passwords.ts';
import type { Queryable } from '../db/database.ts';
import { loadRoom } from '../deal-rooms/repo.ts';
import { documentsOfRoom } from '../documents/repo.ts';
import { recordEvent } from '../events/outbox.ts';
import { followAsCreator } from '../notifications/commands.ts';
import { removeLinkEvents } from '../write/cascade.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import {
  deleteLinkRow,
  disableLink,
  insertLink,
  type LinkRecord,
  type LinkSettings,
  linksWithShortId,
  loadLink,
  lockDueExpiries,
  markExpiryAnnounced,
  replaceLinkDocuments,
  touchLink,
  updateLinkRow,
} from './repo.ts';
import type { Link } from './schemas.ts';
import { toLink } from './service.ts';

/** A link as the management API answers it: the read API's fields and its settings (never the password). */
export type ManagedLink = Link & {
  dealRoomId: string;
  enabled: boolean;
  allowDownload: boolean;
  watermark: boolean;
  documentIds: string[] | null;
  verifyEmail: boolean;
  allowList: string[];
  blockList: string[];
  agreement: string | null;
};

export interface LinkInput extends LinkSettings {
  name: string;
  password?: string | null | undefined;
  /** The documents the link shows; null or absent: all of the room's. */
  documentIds?: string[] | null | undefined;
}

export type LinkChanges = Partial<LinkInput>;

const notFound = () => fail('linkNotFound');
const shortIdTaken = () => new ApiError('conflict', 'shortId is already used by another link');

export async function createLink(ctx: WriteContext, roomId: string, given: LinkInput): Promise<ManagedLink> {
  if (!isUuid(roomId)) throw fail('dealRoomNotFound');
  const input = { ...given, ...gateSettings(ctx, given) };
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return uniqueShortId(() =>
    inWrite(ctx, async (tx) => {
      const room = await loadRoom(tx, roomId, 'key share');
      if (!room) throw fail('dealRoomNotFound');
      const shortId = input.shortId ?? generateShortId();
      await checkShortId(tx, shortId, null);
      const documentIds = input.documentIds ?? null;
      await checkDocuments(tx, roomId, documentIds);
      const id = newId(tx.now.getTime());
      await insertLink(
        tx,
        {
          id,
          roomId,
          name: input.name,
          shortId,
          enabled: input.enabled ?? true,
          requiresEmail: input.requiresEmail ?? false,
          passwordHash,
          expiresAt: input.expiresAt ?? null,
          allowDownload: input.allowDownload ?? true,
          watermark: input.watermark ?? false,
          allDocuments: documentIds === null,
          verifyEmail: input.verifyEmail ?? false,
          allowList: input.allowList ?? [],
          blockList: input.blockList ?? [],
          agreement: input.agreement ?? null,
        },
        tx.now,
      );
      await replaceLinkDocuments(tx, id, documentIds);
      await followAsCreator(tx, ctx.actor, roomId);
      await applyRoomChange(tx, roomId, { links: 1 });
      return changed(tx, ctx, id, 'link.created');
    }),
  );
}

export async function updateLink(ctx: WriteContext, id: string, given: LinkChanges): Promise<ManagedLink> {
  if (!isUuid(id)) throw notFound();
  const changes = { ...given, ...gateSettings(ctx, given) };
  const passwordHash = changes.password ? await hashPassword(changes.password) : changes.password;
  return uniqueShortId(() =>
    inWrite(ctx, async (tx) => {
      const link = await loadLink(tx, id, 'update');
      if (!link) throw notFound();
      if (changes.shortId !== undefined) await checkShortId(tx, changes.shortId, id);
      if (changes.documentIds !== undefined) await checkDocuments(tx, link.deal_room_id, changes.documentIds);
      const before = JSON.stringify(link);
      await updateLinkRow(
        tx,
        id,
        {
          ...changes,
          passwordHash,
          allDocuments: changes.documentIds === undefined ? undefined : changes.documentIds === null,
        },
        tx.now,
      );
      if (changes.documentIds !== undefined) await replaceLinkDocuments(tx, id, changes.documentIds);
      const after = await loadLink(tx, id);
      if (!after) throw notFound();
      // A new password is a change even when the rest reads the same.
      if (JSON.stringify(after) === before && !changes.password) return managed(ctx, tx, link);
      await touchLink(tx, id, tx.now);
      await applyRoomChange(tx, link.deal_room_id);
      return recordChange(tx, ctx, after, 'link.updated');
    }),
  );
}

/** Disables a link; a disabled link is answered as it is, with no event. */
export async function deactivateLink(ctx: WriteContext, id: string): Promise<ManagedLink> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const link = await loadLink(tx, id, 'update');
    if (!link) throw notFound();
    if (!link.enabled) return managed(ctx, tx, link);
    await disableLink(tx, id, tx.now);
    await applyRoomChange(tx, link.deal_room_id);
    return changed(tx, ctx, id, 'link.deactivated');
  });
}

/** Deletes a link with its visits, views and downloads, taken off every figure. */
export async function deleteLink(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  await inWrite(ctx, async (tx) => {
    // Waits for the tracking writes in flight, and holds off new ones (write/guards.ts).
    await exclusiveGuards(tx, [id]);
    const link = await loadLink(tx, id, 'update');
    if (!link) throw notFound();
    await removeLinkEvents(tx, link.deal_room_id, id);
    await deleteLinkRow(tx, id);
    await applyRoomChange(tx, link.deal_room_id, { links: -1 });
    await recordEvent(
      tx,
      { teamId: link.team_id, dealRoomId: link.deal_room_id },
      'link.deleted',
      toLink(link, { appUrl: ctx.appUrl, now: tx.now }),
    );
  });
}

/** Links expired by now whose expiry was not yet announced, taken at most this many per transaction. */
const EXPIRIES_PER_TRANSACTION = 100;

/**
 * Raises link.expired for every link whose expiresAt has passed since it was set, once per
 * expiry: a link whose expiry is moved later raises it again when that one passes. Links
 * another worker is announcing are skipped. Returns how many were raised.
 */
export async function raiseLinkExpiries(ctx: WriteContext): Promise<number> {
  let raised = 0;
  for (;;) {
    const count = await inWrite(ctx, async (tx) => {
      const due = await lockDueExpiries(tx, tx.now, EXPIRIES_PER_TRANSACTION);
      for (const id of due) {
        await markExpiryAnnounced(tx, id);
        const link = await loadLink(tx, id);
        if (link) await recordChange(tx, ctx, link, 'link.expired');
      }
      return due.length;
    });
    raised += count;
    if (count < EXPIRIES_PER_TRANSACTION) return raised;
  }
}

export function managed(ctx: WriteContext, tx: { now: Date }, link: LinkRecord): ManagedLink {
  return {
    ...toLink(link, { appUrl: ctx.appUrl, now: tx.now }),
    dealRoomId: link.deal_room_id,
    enabled: link.enabled,
    allowDownload: link.allow_download,
    watermark: link.watermark,
    documentIds: link.document_ids,
    verifyEmail: link.verify_email,
    allowList: link.allow_list,
    blockList: link.block_list,
    agreement: link.agreement,
  };
}

/**
 * The gate's settings of a write, checked: list entries in their kept form (core/email-entries.ts;
 * a 400 names the first that is neither an email nor `@domain`), an empty agreement as none,
 * and verification only where mail can be sent (409 otherwise).
 */
function gateSettings(ctx: WriteContext, input: LinkSettings): LinkSettings {
  if (input.verifyEmail && !ctx.mailConfigured) {
    throw new ApiError('conflict', 'verifyEmail needs mail: set SMTP_URL so the gate can send codes');
  }
  const settings: LinkSettings = {};
  for (const field of ['allowList', 'blockList'] as const) {
    const entries = input[field];
    if (entries === undefined) continue;
    const kept = entryKeys(entries);
    if (!kept.ok) {
      throw new ApiError('validation_error', `${field}.${kept.index} must be an email or an @domain entry`);
    }
    settings[field] = kept.keys;
  }
  if (input.agreement !== undefined) settings.agreement = input.agreement?.trim() || null;
  return settings;
}

async function changed(
  tx: WriteTx,
  ctx: WriteContext,
  id: string,
  type: 'link.created' | 'link.deactivated',
): Promise<ManagedLink> {
  const link = await loadLink(tx, id);
  if (!link) throw notFound();
  return recordChange(tx, ctx, link, type);
}

/** The link's event, rendered as the read API shows it, and the management answer. */
async function recordChange(
  tx: WriteTx,
  ctx: WriteContext,
  link: LinkRecord,
  type: 'link.created' | 'link.updated' | 'link.deactivated' | 'link.expired',
): Promise<ManagedLink> {
  await recordEvent(
    tx,
    { teamId: link.team_id, dealRoomId: link.deal_room_id },
    type,
    toLink(link, { appUrl: ctx.appUrl, now: tx.now }),
  );
  return managed(ctx, tx, link);
}

/** 10 characters of [A-Za-z0-9]: about 59 bits, so a collision is practically impossible. */
function generateShortId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(10), (b) => alphabet[b % alphabet.length]).join('');
}

async function checkShortId(tx: Queryable, shortId: string, self: string | null): Promise<void> {
  if ((await linksWithShortId(tx, shortId)).some((id) => id !== self)) throw shortIdTaken();
}

/** Two links created at once with one shortId: the loser's unique violation is the same 409. */
async function uniqueShortId<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (
      (err as { code?: unknown }).code === '23505' &&
      /short_id/.test(String((err as Error).message) + String((err as { constraint?: unknown }).constraint))
    ) {
      throw shortIdTaken();
    }
    throw err;
  }
}

async function checkDocuments(tx: Queryable, roomId: string, documentIds: string[] | null): Promise<void> {
  if (documentIds === null || documentIds.length === 0) return;
  const found = await documentsOfRoom(tx, roomId, documentIds);
  const missing = documentIds.find((documentId) => !found.has(documentId.toLowerCase()));
  if (missing) {
    throw new ApiError('validation_error', `documentIds: ${missing} is not a document of this deal room`);
  }
}
