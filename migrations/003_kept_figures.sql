-- Every derived figure the read API shows is kept in a column or a rollup row, changed by
-- deltas in the writing transaction (src/aggregates/deltas.ts is their only writer), so no
-- read counts events or viewers. This migration adds them and fills them once from the
-- events already stored.

-- Rooms per team and status: the room list's total.
ALTER TABLE teams
  ADD COLUMN active_rooms integer NOT NULL DEFAULT 0,
  ADD COLUMN archived_rooms integer NOT NULL DEFAULT 0;

-- A room's counters: the room responses, and `period=all` analytics.
ALTER TABLE deal_rooms
  ADD COLUMN document_count integer NOT NULL DEFAULT 0,
  ADD COLUMN link_count integer NOT NULL DEFAULT 0,
  ADD COLUMN total_views integer NOT NULL DEFAULT 0,
  ADD COLUMN unique_viewers integer NOT NULL DEFAULT 0,
  ADD COLUMN duration_sum bigint NOT NULL DEFAULT 0,
  ADD COLUMN total_downloads integer NOT NULL DEFAULT 0,
  ADD COLUMN first_view_at timestamptz;

-- All-time views per document (top documents for `period=all`), clicks per link.
ALTER TABLE documents
  ADD COLUMN total_views integer NOT NULL DEFAULT 0,
  ADD COLUMN duration_sum bigint NOT NULL DEFAULT 0;
ALTER TABLE links ADD COLUMN total_clicks integer NOT NULL DEFAULT 0;

-- The view that set a viewer's latest view (and its link) and their name: ties on the start
-- time go to the greater view id, so a delta and a recomputation agree.
ALTER TABLE viewers
  ADD COLUMN last_view_id uuid,
  ADD COLUMN name_at timestamptz,
  ADD COLUMN name_view_id uuid;

-- Per room and UTC day: views, their duration, downloads, and the number of viewers whose
-- latest view is that day (moving a viewer's latest view moves one unit between two days),
-- so a period's unique viewers are a sum over its days and the viewer list can find a deep
-- page by walking days instead of viewers.
CREATE TABLE room_daily (
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  day date NOT NULL,
  views integer NOT NULL DEFAULT 0,
  duration_seconds bigint NOT NULL DEFAULT 0,
  downloads integer NOT NULL DEFAULT 0,
  latest_viewers integer NOT NULL DEFAULT 0,
  -- Covering: a period reads its days from the index alone, wherever the rows lie.
  PRIMARY KEY (deal_room_id, day) INCLUDE (views, duration_seconds, downloads, latest_viewers)
);

INSERT INTO room_daily (deal_room_id, day, views, duration_seconds, downloads, latest_viewers)
SELECT deal_room_id, day, sum(views), sum(duration), sum(downloads), sum(latest)
  FROM (
    SELECT deal_room_id, day, views, duration_seconds AS duration, 0 AS downloads, 0 AS latest
      FROM room_daily_views
    UNION ALL
    SELECT deal_room_id, day, 0, 0, downloads, 0 FROM room_daily_downloads
    UNION ALL
    SELECT deal_room_id, (last_viewed_at AT TIME ZONE 'UTC')::date, 0, 0, 0, 1
      FROM viewers WHERE total_views > 0
  ) parts
 GROUP BY deal_room_id, day;
DROP TABLE room_daily_downloads;

-- The per-day rollups of migration 002 become covering too: a 90-day top-documents list
-- of a busy room reads thousands of (day, document) rows, which an import or a day of live
-- tracking leaves scattered over as many table pages.
ALTER TABLE room_daily_views DROP CONSTRAINT room_daily_views_pkey,
  ADD PRIMARY KEY (deal_room_id, day, document_id) INCLUDE (views, duration_seconds);
ALTER TABLE room_daily_visits DROP CONSTRAINT room_daily_visits_pkey,
  ADD PRIMARY KEY (deal_room_id, day, link_id) INCLUDE (visits);

UPDATE teams t SET
  active_rooms = (SELECT count(*) FROM deal_rooms r WHERE r.team_id = t.id AND r.status = 'active'),
  archived_rooms = (SELECT count(*) FROM deal_rooms r WHERE r.team_id = t.id AND r.status = 'archived');

UPDATE deal_rooms r SET
  document_count = (SELECT count(*) FROM documents d WHERE d.deal_room_id = r.id AND d.status = 'published'),
  link_count = (SELECT count(*) FROM links l WHERE l.deal_room_id = r.id),
  total_views = (SELECT coalesce(sum(v.total_views), 0) FROM viewers v WHERE v.deal_room_id = r.id),
  unique_viewers = (SELECT count(*) FROM viewers v WHERE v.deal_room_id = r.id AND v.total_views > 0),
  duration_sum = (SELECT coalesce(sum(v.total_duration_seconds), 0) FROM viewers v WHERE v.deal_room_id = r.id),
  total_downloads = (SELECT count(*) FROM downloads d WHERE d.deal_room_id = r.id),
  first_view_at = (SELECT min(v.first_viewed_at) FROM viewers v WHERE v.deal_room_id = r.id);

UPDATE documents d SET
  total_views = s.n, duration_sum = s.duration
  FROM (SELECT document_id, count(*) AS n, sum(duration_seconds) AS duration FROM views GROUP BY 1) s
 WHERE d.id = s.document_id;
UPDATE links l SET total_clicks = s.n
  FROM (SELECT link_id, count(*) AS n FROM visits GROUP BY 1) s
 WHERE l.id = s.link_id;

UPDATE viewers w SET last_view_id = s.id
  FROM (SELECT DISTINCT ON (viewer_id) viewer_id, id FROM views ORDER BY viewer_id, started_at DESC, id DESC) s
 WHERE w.id = s.viewer_id;
UPDATE viewers w SET name_at = s.started_at, name_view_id = s.id
  FROM (SELECT DISTINCT ON (viewer_id) viewer_id, id, started_at FROM views WHERE viewer_name <> ''
         ORDER BY viewer_id, started_at DESC, id DESC) s
 WHERE w.id = s.viewer_id;

-- Reads no longer scan events, so the events keep only what writes need: their primary key
-- (a view is completed by id) and, for views, (viewer_id, document_id), which counts a
-- viewer's distinct documents. Their foreign keys go too: an event row is written only by
-- the write paths, whose references are checked before it, and an event is removed only
-- with its figures taken off by the delta module, never by a silent cascade. (Each foreign
-- key also cost a lookup per inserted row: a third of a million-view import.)
DROP INDEX views_room_started_idx;
DROP INDEX views_viewer_started_idx;
DROP INDEX views_document_idx;
DROP INDEX views_link_idx;
CREATE INDEX views_viewer_document_idx ON views (viewer_id, document_id);
DROP INDEX visits_link_idx;
DROP INDEX visits_room_at_idx;
DROP INDEX downloads_room_at_idx;
DROP INDEX downloads_document_idx;
DROP INDEX downloads_link_idx;
ALTER TABLE views
  DROP CONSTRAINT views_deal_room_id_fkey, DROP CONSTRAINT views_viewer_id_fkey,
  DROP CONSTRAINT views_document_id_fkey, DROP CONSTRAINT views_link_id_fkey;
ALTER TABLE visits
  DROP CONSTRAINT visits_deal_room_id_fkey, DROP CONSTRAINT visits_viewer_id_fkey,
  DROP CONSTRAINT visits_link_id_fkey;
ALTER TABLE downloads
  DROP CONSTRAINT downloads_deal_room_id_fkey, DROP CONSTRAINT downloads_viewer_id_fkey,
  DROP CONSTRAINT downloads_document_id_fkey, DROP CONSTRAINT downloads_link_id_fkey;

-- Top documents for `period=all` read a room's documents, whatever their status; deleting a
-- room reaches its documents through it too.
CREATE INDEX documents_room_idx ON documents (deal_room_id);
