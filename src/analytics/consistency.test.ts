import { describe, expect, it } from 'vitest';
import { roundedMean } from '../core/time.ts';
import { datasetRecords } from '../import/dataset.ts';
import { importRecords } from '../import/service.ts';
import { createApiKey } from '../keys/commands.ts';
import { DEMO_TEAM_ID, demoDataset } from '../seed/demo.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { periodDays } from './period.ts';

/**
 * The API reads rollups (per viewer, per day); this recomputes every figure straight from
 * the raw events of the whole demo dataset and compares, for every room and period.
 */
describe.each(storeKinds())('figures agree with the raw events (%s store)', (kind) => {
  const s = useApi(kind);

  it('for every room of the demo data and every period', { timeout: 120_000 }, async () => {
    await importRecords(s.db, s.clock, datasetRecords(demoDataset(s.clock.now())));
    const { key } = await createApiKey({ db: s.db, clock: s.clock, appUrl: '' }, { teamId: DEMO_TEAM_ID });
    const rooms = await s.db.query<{ id: string; created_at: Date }>(
      'SELECT id, created_at FROM deal_rooms WHERE team_id = $1',
      [DEMO_TEAM_ID],
    );
    expect(rooms.length).toBeGreaterThan(1);
    for (const room of rooms) {
      const first = await s.db.query<{ at: Date | null }>(
        'SELECT min(started_at) AS at FROM views WHERE deal_room_id = $1',
        [room.id],
      );
      for (const period of ['7d', '30d', '90d', 'all'] as const) {
        const since = periodDays(period, s.clock.now(), {
          createdAt: room.created_at,
          firstViewAt: first[0]?.at ?? null,
        }).firstDay;
        const [raw] = await s.db.query<{
          views: number;
          viewers: number;
          duration: number;
          downloads: number;
        }>(
          `SELECT count(*)::int AS views, count(DISTINCT viewer_id)::int AS viewers,
                  coalesce(sum(duration_seconds), 0)::float8 AS duration,
                  (SELECT count(*)::int FROM downloads d WHERE d.deal_room_id = $1 AND d.at >= $2) AS downloads
             FROM views WHERE deal_room_id = $1 AND started_at >= $2`,
          [room.id, since],
        );
        const topDocs = await s.db.query<{ id: string }>(
          `SELECT v.document_id AS id FROM views v JOIN documents d ON d.id = v.document_id
            WHERE v.deal_room_id = $1 AND v.started_at >= $2
            GROUP BY v.document_id, d.name ORDER BY count(*) DESC, d.name COLLATE "C", v.document_id LIMIT 10`,
          [room.id, since],
        );
        const topLinks = await s.db.query<{ id: string; clicks: number }>(
          `SELECT vi.link_id AS id, count(*)::int AS clicks FROM visits vi JOIN links l ON l.id = vi.link_id
            WHERE vi.deal_room_id = $1 AND vi.at >= $2
            GROUP BY vi.link_id, l.name ORDER BY count(*) DESC, l.name COLLATE "C", vi.link_id LIMIT 10`,
          [room.id, since],
        );
        const data = (await s.api.get(`/v1/deal-rooms/${room.id}/analytics?period=${period}`, key)).body.data;
        expect(data.totalViews).toBe(raw?.views);
        expect(data.uniqueViewers).toBe(raw?.viewers);
        expect(data.avgViewDurationSeconds).toBe(roundedMean(raw?.duration ?? 0, raw?.views ?? 0));
        expect(data.totalDownloads).toBe(raw?.downloads);
        expect(data.topDocuments.map((d: { documentId: string }) => d.documentId)).toEqual(
          topDocs.map((d) => d.id),
        );
        expect(data.topLinks.map((l: { linkId: string; clicks: number }) => [l.linkId, l.clicks])).toEqual(
          topLinks.map((l) => [l.id, l.clicks]),
        );
        if (period === 'all') {
          const detail = (await s.api.get(`/v1/deal-rooms/${room.id}`, key)).body.data;
          expect([detail.totalViews, detail.uniqueViewers, detail.avgViewDurationSeconds]).toEqual([
            data.totalViews,
            data.uniqueViewers,
            data.avgViewDurationSeconds,
          ]);
          const viewers = (await s.api.get(`/v1/deal-rooms/${room.id}/viewers?per_page=1`, key)).body.meta
            .pagination;
          expect(viewers.total).toBe(data.uniqueViewers);
        }
      }
    }
  });
});
