/**
 * A deterministic data set of the size busy teams reach, streamed to NDJSON for
 * `dealroom import`:
 *
 *   tsx bench/generate.ts FILE [--views N]      (default 1,000,000 views)
 *
 * One team with 200 rooms. The busy room holds 60% of the views, from N/10 viewers over 30
 * links and 40 documents; a second room holds 10,000 views (10 documents, 5 links); the
 * other 198 share the rest. 1.1 visits and 0.05 downloads per view. Events fall in the 180
 * days before the generation time; a third of the viewers are anonymous, and emails come
 * in several spellings of the same address.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const BENCH_TEAM_ID = '00000000-0000-4000-8000-0000000000be';
const ROOMS = 200;
const DAYS = 180;

export interface GeneratedShape {
  views: number;
  busyRoomId: string;
  smallRoomId: string;
  busyRoomViewers: number;
}

/** mulberry32: a small, fast, seeded generator; the same seed gives the same file. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Room {
  id: string;
  documents: string[];
  links: string[];
  viewers: number;
  views: number;
}

export async function generate(file: string, views: number, now = new Date()): Promise<GeneratedShape> {
  const random = prng(42);
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
    hex[12] = '4';
    hex[16] = '8';
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

  const out = createWriteStream(file);
  let buffer = '';
  const write = async (record: object) => {
    buffer += `${JSON.stringify(record)}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  };

  const end = now.getTime() - 3_600_000;
  const start = end - DAYS * 86_400_000;
  const at = () => new Date(start + random() * (end - start)).toISOString();
  const roomCreated = new Date(start - 86_400_000).toISOString();

  const busyViews = Math.round(views * 0.6);
  const smallViews = Math.min(10_000, views - busyViews);
  const rest = views - busyViews - smallViews;
  const rooms: Room[] = [];
  for (let i = 0; i < ROOMS; i++) {
    const [documents, links, roomViews] =
      i === 0 ? [40, 30, busyViews] : i === 1 ? [10, 5, smallViews] : [8, 3, 0];
    rooms.push({
      id: uuid(),
      documents: Array.from({ length: documents }, uuid),
      links: Array.from({ length: links }, uuid),
      viewers: 0,
      views: roomViews,
    });
  }
  // The rest is spread evenly over the other rooms.
  for (let i = 0; i < rest; i++) (rooms[2 + (i % (ROOMS - 2))] as Room).views++;
  for (const room of rooms) room.viewers = Math.max(1, Math.round(room.views / 6));

  await write({ type: 'team', id: BENCH_TEAM_ID, name: 'Bench Capital' });
  for (const [i, room] of rooms.entries()) {
    await write({
      type: 'dealRoom',
      id: room.id,
      teamId: BENCH_TEAM_ID,
      name: `Project ${i === 0 ? 'Atlas (busy)' : `Room ${i}`}`,
      description: 'Generated for the benchmark',
      status: i % 10 === 9 ? 'archived' : 'active',
      createdAt: roomCreated,
      updatedAt: roomCreated,
    });
    for (const [position, id] of room.documents.entries()) {
      await write({
        type: 'document',
        id,
        dealRoomId: room.id,
        name: `Document ${position + 1}.pdf`,
        displayName: null,
        sourceType: 'upload',
        pageCount: 1 + (position % 40),
        status: position % 10 === 9 ? 'archived' : 'published',
        position,
        createdAt: roomCreated,
        updatedAt: roomCreated,
      });
    }
    for (const [n, id] of room.links.entries()) {
      await write({
        type: 'link',
        id,
        dealRoomId: room.id,
        name: `Link ${n + 1}`,
        shortId: id.replaceAll('-', '').slice(0, 12),
        enabled: true,
        requiresEmail: n % 2 === 0,
        expiresAt: null,
        createdAt: roomCreated,
      });
    }
  }

  for (const room of rooms) {
    const viewer = () => {
      const k = Math.floor(random() * room.viewers);
      if (k % 3 === 2) return { visitorId: `visitor-${room.id.slice(0, 8)}-${k}` };
      const spelled = k % 2 === 0 ? `viewer${k}@example.com` : ` Viewer${k}@Example.COM `;
      return { email: spelled, name: random() < 0.5 ? `Viewer ${k}` : '' };
    };
    for (let i = 0; i < room.views; i++) {
      const who = viewer();
      const linkId = pick(room.links);
      const documentId = pick(room.documents);
      const startedAt = at();
      await write({ type: 'visit', linkId, at: startedAt, viewer: who });
      if (i % 10 === 0) await write({ type: 'visit', linkId: pick(room.links), at: at(), viewer: viewer() });
      await write({
        type: 'view',
        linkId,
        documentId,
        viewer: who,
        startedAt,
        durationSeconds: Math.floor(random() * 600),
      });
      if (i % 20 === 0) await write({ type: 'download', linkId, documentId, viewer: who, at: startedAt });
    }
  }
  out.end(buffer);
  await once(out, 'finish');
  const [busy, small] = rooms as [Room, Room];
  return { views, busyRoomId: busy.id, smallRoomId: small.id, busyRoomViewers: busy.viewers };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, flag, value] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/generate.ts FILE [--views N]');
    process.exit(2);
  }
  const views = flag === '--views' ? Number(value) : 1_000_000;
  const shape = await generate(file, views);
  console.log(JSON.stringify(shape));
}
