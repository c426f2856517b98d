import type { Column } from '../db/bulk.ts';

/** The tables an import writes, their columns in insert order, and how they are flushed. */

export const COLUMNS = {
  teams: [
    ['id', 'uuid'],
    ['name', 'text'],
  ],
  deal_rooms: [
    ['id', 'uuid'],
    ['team_id', 'uuid'],
    ['name', 'text'],
    ['description', 'text'],
    ['status', 'text'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ],
  documents: [
    ['id', 'uuid'],
    ['deal_room_id', 'uuid'],
    ['name', 'text'],
    ['display_name', 'text'],
    ['source_type', 'text'],
    ['page_count', 'int4'],
    ['status', 'text'],
    ['position', 'int4'],
    ['download_override', 'bool'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ],
  links: [
    ['id', 'uuid'],
    ['deal_room_id', 'uuid'],
    ['name', 'text'],
    ['short_id', 'text'],
    ['enabled', 'bool'],
    ['requires_email', 'bool'],
    ['password_hash', 'text'],
    ['expires_at', 'timestamptz'],
    ['allow_download', 'bool'],
    ['all_documents', 'bool'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
    ['expiry_announced_for', 'timestamptz'],
  ],
  link_documents: [
    ['link_id', 'uuid'],
    ['document_id', 'uuid'],
  ],
} as const satisfies Record<string, readonly Column[]>;

export type Table = keyof typeof COLUMNS;
/** Tables in the order their rows must reach the database (what is referred to first). */
export const FLUSH_ORDER: Table[] = ['teams', 'deal_rooms', 'documents', 'links', 'link_documents'];
/** Tables whose ids the input chooses, checked against the database before insert. */
export const CHOSEN_IDS: Partial<Record<Table, string>> = {
  teams: 'team',
  deal_rooms: 'deal room',
  documents: 'document',
  links: 'link',
};
