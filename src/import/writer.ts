import {
  applyRoomContents,
  applyTeamRooms,
  type RoomContentsDelta,
  type TeamRoomsDelta,
} from '../aggregates/contents.ts';
import { newId } from '../core/ids.ts';
import { hashPassword } from '../core/passwords.ts';
import { insertMany } from '../db/bulk.ts';
import type { Queryable } from '../db/database.ts';
import { identityKey, type ViewerIdentity } from '../viewers/identity.ts';
import {
  type DealRoomRecord,
  type DocumentRecord,
  ImportError,
  type ImportRecord,
  type LinkRecord,
  type RecordType,
} from './records.ts';
import { EventStaging } from './staging.ts';
import { CHOSEN_IDS, COLUMNS, FLUSH_ORDER, type Table } from './tables.ts';

const BATCH_SIZE = 5000;

/** What the import knows of an entity: its owner, and where it was defined when in the input. */
interface Known {
  owner: string;
  where?: string;
}

/**
 * Writes validated records inside the caller's transaction, resolving every reference to
 * something earlier in the input or already in the database, and refusing duplicates.
 * Teams, rooms, documents and links are inserted in batches; events and the viewers the
 * import adds are staged (staging.ts) and applied to the derived figures set-based at the
 * end, through the same delta module as live writes.
 */
export class ImportWriter {
  readonly counts: Record<RecordType, number> = {
    team: 0,
    dealRoom: 0,
    document: 0,
    link: 0,
    visit: 0,
    view: 0,
    download: 0,
  };
  private readonly teams = new Map<string, Known>();
  private readonly rooms = new Map<string, Known>();
  private readonly documents = new Map<string, Known>();
  private readonly links = new Map<string, Known>();
  private readonly shortIds = new Map<string, string>();
  /**
   * Viewer ids by identity, per room: those the database held (a room already there is loaded
   * whole on first use) and those this import adds.
   */
  private readonly viewers = new Map<string, { stored: Map<string, string>; added: Map<string, string> }>();
  /** Whether this import counts events of stored viewers, which other transactions may write too. */
  private countsStored = false;
  /** Published documents and links added per room, rooms added per team and status. */
  private readonly roomContents = new Map<string, RoomContentsDelta>();
  private readonly teamRooms = new Map<string, TeamRoomsDelta>();
  private readonly pending = new Map<Table, { rows: unknown[][]; wheres: string[] }>();
  private pendingCount = 0;
  private readonly events: EventStaging;

  constructor(private readonly tx: Queryable) {
    this.events = new EventStaging(tx);
  }

  async add(item: ImportRecord): Promise<void> {
    const { where } = item;
    switch (item.type) {
      case 'team':
        this.define(this.teams, item.record.id, { owner: '' }, where, 'team');
        this.queue('teams', [item.record.id, item.record.name], where);
        break;
      case 'dealRoom':
        await this.addRoom(item.record, where);
        break;
      case 'document':
        await this.addDocument(item.record, where);
        break;
      case 'link':
        await this.addLink(item.record, where);
        break;
      case 'visit': {
        const { record } = item;
        const roomId = this.links.get(record.linkId)?.owner ?? (await this.roomOfLink(record.linkId, where));
        const viewerId = await this.viewerId(roomId, record.viewer, record.at);
        await this.events.add('visits', [newId(), roomId, record.linkId, viewerId, record.at]);
        break;
      }
      case 'view': {
        const { record } = item;
        const roomId = await this.linkAndDocument(record.linkId, record.documentId, where);
        const viewerId = await this.viewerId(roomId, record.viewer, record.startedAt);
        await this.events.add('views', [
          newId(),
          roomId,
          record.documentId,
          record.linkId,
          viewerId,
          record.viewer.name,
          record.startedAt,
          record.durationSeconds,
          new Date(record.startedAt.getTime() + record.durationSeconds * 1000),
        ]);
        break;
      }
      case 'download': {
        const { record } = item;
        const roomId = await this.linkAndDocument(record.linkId, record.documentId, where);
        const viewerId = await this.viewerId(roomId, record.viewer, record.at);
        await this.events.add('downloads', [
          newId(),
          roomId,
          record.documentId,
          record.linkId,
          viewerId,
          record.at,
        ]);
        break;
      }
    }
    this.counts[item.type]++;
    if (this.pendingCount >= BATCH_SIZE) await this.flush();
  }

  /** Writes what is buffered, then applies every record to the derived figures. */
  async finish(): Promise<void> {
    await this.flush();
    await applyTeamRooms(this.tx, [...this.teamRooms.values()]);
    await applyRoomContents(this.tx, [...this.roomContents.values()]);
    await this.events.finish(this.countsStored);
  }

  private async addRoom(record: DealRoomRecord, where: string): Promise<void> {
    await this.resolve(this.teams, 'teams', record.teamId, where, 'teamId', 'team');
    this.define(this.rooms, record.id, { owner: record.teamId }, where, 'deal room');
    this.viewers.set(record.id, { stored: new Map(), added: new Map() }); // new: none stored
    const team = this.teamRooms.get(record.teamId) ?? { teamId: record.teamId, active: 0, archived: 0 };
    team[record.status]++;
    this.teamRooms.set(record.teamId, team);
    this.queue(
      'deal_rooms',
      [
        record.id,
        record.teamId,
        record.name,
        record.description,
        record.status,
        record.createdAt,
        record.updatedAt,
      ],
      where,
    );
  }

  private async addDocument(record: DocumentRecord, where: string): Promise<void> {
    await this.resolve(this.rooms, 'deal_rooms', record.dealRoomId, where, 'dealRoomId', 'deal room');
    this.define(this.documents, record.id, { owner: record.dealRoomId }, where, 'document');
    if (record.status === 'published') this.contentsOf(record.dealRoomId).publishedDocuments++;
    this.queue(
      'documents',
      [
        record.id,
        record.dealRoomId,
        record.name,
        record.displayName,
        record.sourceType,
        record.pageCount,
        record.status,
        record.position,
        record.downloadOverride,
        record.createdAt,
        record.updatedAt,
      ],
      where,
    );
  }

  private async addLink(record: LinkRecord, where: string): Promise<void> {
    await this.resolve(this.rooms, 'deal_rooms', record.dealRoomId, where, 'dealRoomId', 'deal room');
    for (const documentId of record.documentIds ?? []) {
      const owner = await this.resolve(
        this.documents,
        'documents',
        documentId,
        where,
        'documentIds',
        'document',
      );
      if (owner !== record.dealRoomId) {
        throw new ImportError(where, 'documentIds', `document ${documentId} belongs to another deal room`);
      }
    }
    const earlier = this.shortIds.get(record.shortId);
    if (earlier) throw new ImportError(where, 'shortId', `is already used by the link at ${earlier}`);
    this.shortIds.set(record.shortId, where);
    this.define(this.links, record.id, { owner: record.dealRoomId }, where, 'link');
    this.contentsOf(record.dealRoomId).links++;
    const passwordHash = record.password === null ? null : await hashPassword(record.password);
    this.queue(
      'links',
      [
        record.id,
        record.dealRoomId,
        record.name,
        record.shortId,
        record.enabled,
        record.requiresEmail,
        passwordHash,
        record.expiresAt,
        record.allowDownload,
        record.documentIds === null,
        record.createdAt,
        record.createdAt,
        // History: an expiry already past when it is imported raises no link.expired.
        record.expiresAt !== null && record.expiresAt.getTime() <= Date.now() ? record.expiresAt : null,
      ],
      where,
    );
    for (const documentId of record.documentIds ?? []) {
      this.queue('link_documents', [record.id, documentId], where);
    }
  }

  private contentsOf(dealRoomId: string): RoomContentsDelta {
    let delta = this.roomContents.get(dealRoomId);
    if (!delta) {
      delta = { dealRoomId, publishedDocuments: 0, links: 0 };
      this.roomContents.set(dealRoomId, delta);
    }
    return delta;
  }

  private roomOfLink(linkId: string, where: string): Promise<string> {
    return this.resolve(this.links, 'links', linkId, where, 'linkId', 'link');
  }

  /**
   * The room of a link, after checking the document belongs to the same room. Both are
   * nearly always known already: then no promise is made (an import checks millions).
   */
  private linkAndDocument(linkId: string, documentId: string, where: string): string | Promise<string> {
    const roomId = this.links.get(linkId)?.owner;
    const documentRoom = this.documents.get(documentId)?.owner;
    if (roomId === undefined || documentRoom === undefined) {
      return (async () => {
        const room = roomId ?? (await this.roomOfLink(linkId, where));
        const owner =
          documentRoom ??
          (await this.resolve(this.documents, 'documents', documentId, where, 'documentId', 'document'));
        return this.sameRoom(room, owner, where);
      })();
    }
    return this.sameRoom(roomId, documentRoom, where);
  }

  private sameRoom(linkRoom: string, documentRoom: string, where: string): string {
    if (documentRoom !== linkRoom) {
      throw new ImportError(where, 'documentId', "belongs to another deal room than the link's");
    }
    return linkRoom;
  }

  private define(known: Map<string, Known>, id: string, entity: Known, where: string, noun: string): void {
    const earlier = known.get(id);
    if (earlier) {
      throw new ImportError(
        where,
        'id',
        earlier.where
          ? `repeats the ${noun} id of ${earlier.where}`
          : `a ${noun} with this id already exists`,
      );
    }
    known.set(id, { ...entity, where });
  }

  /** The owner of a referenced entity, from the input so far or from the database. */
  private async resolve(
    known: Map<string, Known>,
    table: Table,
    id: string,
    where: string,
    field: string,
    noun: string,
  ): Promise<string> {
    const hit = known.get(id);
    if (hit) return hit.owner;
    const ownerColumn = table === 'teams' ? "''" : table === 'deal_rooms' ? 'team_id' : 'deal_room_id';
    const rows = await this.tx.query<{ owner: string }>(
      `SELECT ${ownerColumn}::text AS owner FROM ${table} WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) {
      throw new ImportError(
        where,
        field,
        `refers to no ${noun} (${id}); a record must come after what it refers to`,
      );
    }
    known.set(id, { owner: row.owner });
    return row.owner;
  }

  /** A viewer's id in a room, made on first sight; a room already in the database is loaded whole first. */
  private viewerId(roomId: string, viewer: ViewerIdentity, at: Date): string | Promise<string> {
    const known = this.viewers.get(roomId);
    if (!known) return this.loadViewers(roomId).then(() => this.viewerId(roomId, viewer, at));
    const identity = identityKey(viewer);
    const stored = known.stored.get(identity);
    if (stored) {
      this.countsStored = true;
      return stored;
    }
    const added = known.added.get(identity);
    if (added) return added;
    const id = newId();
    known.added.set(identity, id);
    // Staged, and inserted at the end with its figures (aggregates/imported.ts).
    const email = viewer.kind === 'email' ? viewer.email : '';
    const sent = this.events.add('viewers', [id, roomId, identity, email, at]);
    return sent ? sent.then(() => id) : id;
  }

  private async loadViewers(roomId: string): Promise<void> {
    const rows = await this.tx.query<{ id: string; identity: string }>(
      'SELECT id, identity FROM viewers WHERE deal_room_id = $1',
      [roomId],
    );
    this.viewers.set(roomId, {
      stored: new Map(rows.map((row) => [row.identity, row.id])),
      added: new Map(),
    });
  }

  private queue(table: Table, row: unknown[], where: string): void {
    let batch = this.pending.get(table);
    if (!batch) {
      batch = { rows: [], wheres: [] };
      this.pending.set(table, batch);
    }
    batch.rows.push(row);
    batch.wheres.push(where);
    this.pendingCount++;
  }

  private async flush(): Promise<void> {
    for (const table of FLUSH_ORDER) {
      const batch = this.pending.get(table);
      if (!batch || batch.rows.length === 0) continue;
      await this.refuseExisting(table, batch);
      if (table === 'links') await this.refuseUsedShortIds(batch);
      await insertMany(this.tx, table, COLUMNS[table], batch.rows);
    }
    this.pending.clear();
    this.pendingCount = 0;
  }

  private async refuseExisting(table: Table, batch: { rows: unknown[][]; wheres: string[] }): Promise<void> {
    const noun = CHOSEN_IDS[table];
    if (!noun) return;
    const ids = batch.rows.map((row) => row[0] as string);
    const taken = await this.tx.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
    const first = taken[0];
    if (first) {
      throw new ImportError(
        batch.wheres[ids.indexOf(first.id)] ?? 'a record',
        'id',
        `a ${noun} with this id already exists`,
      );
    }
  }

  private async refuseUsedShortIds(batch: { rows: unknown[][]; wheres: string[] }): Promise<void> {
    const shortIds = batch.rows.map((row) => row[3] as string);
    const taken = await this.tx.query<{ short_id: string }>(
      'SELECT short_id FROM links WHERE short_id = ANY($1::text[])',
      [shortIds],
    );
    const first = taken[0];
    if (first) {
      throw new ImportError(
        batch.wheres[shortIds.indexOf(first.short_id)] ?? 'a record',
        'shortId',
        'is already used by another link',
      );
    }
  }
}
