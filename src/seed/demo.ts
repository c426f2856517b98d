import type { Dataset } from '../import/dataset.ts';

/** The demo team's fixed id, so `serve --demo` can find it again on a later start. */
export const DEMO_TEAM_ID = 'de300000-0000-4000-8000-000000000001';
/** The demo link `serve --demo` prints: the first link of the demo team's first room (it asks for an email). */
export const DEMO_LINK_SHORT_ID = 'northwind-demo';

const DAY = 86_400_000;
const FIRST = [
  'Ava',
  'Liam',
  'Maya',
  'Noah',
  'Zoë',
  'Ethan',
  'Priya',
  'Lucas',
  'Chloé',
  'Mateo',
  'Hana',
  'Omar',
  'Ines',
  'Jonas',
  'Sofia',
  'Kenji',
  'Amara',
  'Felix',
  'Lea',
  'Ravi',
];
const LAST = [
  'Chen',
  'Müller',
  'Okafor',
  'Silva',
  'Nakamura',
  'Patel',
  'García',
  'Johansson',
  'Kowalski',
  'Dubois',
  'Haddad',
  'Rossi',
  'Kim',
  'Novak',
  'Walsh',
];
const COMPANIES = [
  'bluepeak.vc',
  'ironbridge.com',
  'northstar.capital',
  'meridian-partners.com',
  'oakline.io',
  'granite.fund',
];
const ROOMS = [
  ['Project Falcon – Series B', 'Due diligence for the Series B round'],
  ['Acquisition of Brightline Ltd', 'Buy-side M&A data room'],
  ['Q3 Board Pack', 'Board materials for the third quarter'],
  ['Enterprise RFP – Contoso', 'Responses and security documentation'],
  ['Project Atlas – Seed Extension', 'Seed extension investor materials'],
  ['Divestiture of Retail Unit', 'Sell-side vendor due diligence'],
  ['Partnership Proposal – Globex', 'Commercial terms and product roadmap'],
  ['Annual Investor Update 2026', 'Yearly update for existing investors'],
];
const DOCS = [
  'Pitch Deck.pdf',
  'Financial Model.pdf',
  'Cap Table.pdf',
  'Customer Contracts.pdf',
  'Security Whitepaper.pdf',
  'Product Roadmap.pdf',
  'Team Bios.pdf',
  'Market Analysis.pdf',
  'Term Sheet.pdf',
  'Audit Report 2025.pdf',
  'IP Schedule.pdf',
  'Board Minutes.pdf',
];
const SOURCES = ['upload', 'upload', 'upload', 'google_drive', 'dropbox', 'onedrive', 'box', 'notion', 'url'];
const LINKS = [
  'Lead investors',
  'Existing shareholders',
  'Advisors',
  'Legal counsel',
  'Public teaser',
  'Board',
];

const SECTIONS = [
  [
    'Overview',
    [
      'What this document covers, and why it matters for the transaction.',
      'Key figures are summarised on the following pages.',
    ],
  ],
  [
    'Highlights',
    [
      'Revenue grew 84% year over year, with net retention of 131%.',
      'Gross margin reached 78% in the last quarter.',
      'Sales cycles shortened from 94 to 61 days.',
    ],
  ],
  [
    'Market',
    [
      'A $14bn serviceable market, growing 22% a year.',
      'Three competitors hold 40% between them; the rest is fragmented.',
    ],
  ],
  [
    'Customers',
    ['412 paying customers, 38 of them above $100k a year.', 'The top ten customers are 19% of revenue.'],
  ],
  [
    'Financials',
    ['Annual recurring revenue: $18.4m.', 'Burn multiple: 1.1. Runway: 27 months at the current plan.'],
  ],
  [
    'Team',
    [
      'Founders with two earlier exits between them.',
      '164 people across four offices; 58% in product and engineering.',
    ],
  ],
  [
    'Risks',
    [
      'Concentration in financial services (34% of revenue).',
      'Two enterprise renewals fall in the next two quarters.',
    ],
  ],
  [
    'Next steps',
    [
      'Questions go to the deal team through this room.',
      'Confirmatory diligence is planned for the coming four weeks.',
    ],
  ],
] as const;

/** The pages of a demo document: a cover, then sections in turn. */
export function demoPages(title: string, count: number): { heading: string; lines: string[] }[] {
  return Array.from({ length: count }, (_, i) => {
    if (i === 0)
      return {
        heading: title,
        lines: ['Confidential: shared through Deal Room.', 'Northwind Capital, 2026.'],
      };
    const [heading, lines] = SECTIONS[(i - 1) % SECTIONS.length] as (typeof SECTIONS)[number];
    return { heading: `${i}. ${heading}`, lines: [...lines] };
  });
}

/** A small deterministic generator (mulberry32), so the demo is the same on every machine. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => int(0, 15).toString(16));
    hex[12] = '4';
    hex[16] = (8 + int(0, 3)).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
  return { next, int, pick, uuid };
}

/**
 * Realistic demo data ending at `now`: three teams, eight rooms, dozens of documents and
 * links, hundreds of viewers and thousands of views over the last 120 days.
 */
export function demoDataset(now: Date): Required<Dataset> {
  const r = random(20260401);
  const iso = (ms: number) => new Date(ms).toISOString();
  const end = now.getTime() - 60_000;
  const data: Required<Dataset> = {
    teams: [],
    dealRooms: [],
    documents: [],
    links: [],
    visits: [],
    views: [],
    downloads: [],
  };
  const teams = [
    { id: DEMO_TEAM_ID, name: 'Northwind Capital', rooms: 4 },
    { id: r.uuid(), name: 'Harbor Ventures', rooms: 2 },
    { id: r.uuid(), name: 'Summit Partners', rooms: 2 },
  ];
  let roomIndex = 0;
  for (const team of teams) {
    data.teams.push({ id: team.id, name: team.name });
    for (let i = 0; i < team.rooms; i++) {
      const [name, description] = ROOMS[roomIndex++ % ROOMS.length] as [string, string];
      const roomId = r.uuid();
      const createdAt = end - r.int(130, 220) * DAY;
      const updatedAt = end - r.int(0, 20) * DAY - r.int(0, DAY);
      data.dealRooms.push({
        id: roomId,
        teamId: team.id,
        name,
        description,
        status: i === team.rooms - 1 && team.rooms > 2 ? 'archived' : 'active',
        createdAt: iso(createdAt),
        updatedAt: iso(updatedAt),
      });

      const docs = [...DOCS].sort(() => r.next() - 0.5).slice(0, r.int(6, 12));
      const docIds = docs.map((docName, position) => {
        const id = r.uuid();
        const status = position === docs.length - 1 ? 'draft' : 'published';
        data.documents.push({
          id,
          dealRoomId: roomId,
          name: docName,
          displayName: r.next() < 0.3 ? docName.replace(/\.\w+$/, '') : null,
          sourceType: r.pick(SOURCES),
          pageCount: r.int(2, 12),
          status,
          position: position + 1,
          downloadOverride: null,
          createdAt: iso(createdAt + DAY),
          updatedAt: iso(createdAt + r.int(1, 60) * DAY),
        });
        return { id, published: status === 'published' };
      });
      const viewable = docIds.filter((d) => d.published).map((d) => d.id);

      const linkIds = LINKS.slice(0, r.int(3, 5)).map((linkName, index) => {
        const id = r.uuid();
        const shortId = r.uuid().replaceAll('-', '').slice(0, 10);
        data.links.push({
          id,
          dealRoomId: roomId,
          name: linkName,
          shortId: roomIndex === 1 && index === 0 ? DEMO_LINK_SHORT_ID : shortId,
          enabled: index !== 3,
          requiresEmail: index !== 4,
          ...(index === 2 ? { password: 'demo-password' } : {}),
          expiresAt: index === 4 ? iso(end - 3 * DAY) : null,
          allowDownload: index !== 1,
          createdAt: iso(createdAt + 2 * DAY + index * 3_600_000),
        });
        return id;
      });

      const viewers = Array.from({ length: r.int(35, 75) }, () => {
        if (r.next() < 0.1) return { visitorId: `anon-${r.uuid().slice(0, 8)}` };
        const first = r.pick(FIRST);
        const last = r.pick(LAST);
        const email = `${first}.${last}@${r.pick(COMPANIES)}`
          .normalize('NFD')
          .replace(/[\u0300-\u036f]/g, '')
          .toLowerCase();
        return { email: r.next() < 0.2 ? email.toUpperCase() : email, name: `${first} ${last}` };
      });

      const sessions = r.int(180, 320);
      for (let s = 0; s < sessions; s++) {
        const viewer = r.pick(viewers);
        const linkId = r.pick(linkIds);
        // More activity in recent weeks, as a live deal has.
        const daysAgo = Math.floor(120 * r.next() ** 1.6);
        let at = Math.min(end - daysAgo * DAY - r.int(0, DAY), end - 2 * 3_600_000);
        data.visits.push({ linkId, viewer, at: iso(at) });
        for (let v = r.int(1, 4); v > 0; v--) {
          const documentId = r.pick(viewable);
          const durationSeconds = r.int(5, 900);
          data.views.push({ linkId, documentId, viewer, startedAt: iso(at), durationSeconds });
          if (r.next() < 0.08)
            data.downloads.push({
              linkId,
              documentId,
              viewer,
              at: iso(at + durationSeconds * 1000),
            });
          at += (durationSeconds + r.int(5, 120)) * 1000;
        }
      }
    }
  }
  return data;
}
