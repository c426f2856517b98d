-- Each room's figures per 15-minute slot (UTC), so the dashboard counts days from midnight in
-- the team's timezone: every zone's offset is a whole number of quarter hours, so any local
-- day is a whole number of slots. Kept by the delta module beside room_daily, which stays the
-- read API's (UTC days); internal views and downloads count in neither.

CREATE TABLE room_slots (
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  slot timestamptz NOT NULL,
  views integer NOT NULL DEFAULT 0,
  duration_seconds bigint NOT NULL DEFAULT 0,
  downloads integer NOT NULL DEFAULT 0,
  latest_viewers integer NOT NULL DEFAULT 0,
  visits integer NOT NULL DEFAULT 0,
  -- Covering: a period reads its slots from the index alone.
  PRIMARY KEY (deal_room_id, slot) INCLUDE (views, duration_seconds, downloads, latest_viewers, visits)
);

INSERT INTO room_slots (deal_room_id, slot, views, duration_seconds, downloads, latest_viewers, visits)
SELECT deal_room_id, slot, sum(views), sum(duration), sum(downloads), sum(latest), sum(visits)
  FROM (
    SELECT deal_room_id, date_bin('15 minutes', started_at, timestamptz '2000-01-01 00:00+00') AS slot,
           1 AS views, duration_seconds AS duration, 0 AS downloads, 0 AS latest, 0 AS visits
      FROM views WHERE NOT internal
    UNION ALL
    SELECT deal_room_id, date_bin('15 minutes', at, timestamptz '2000-01-01 00:00+00'), 0, 0, 1, 0, 0
      FROM downloads WHERE NOT internal
    UNION ALL
    SELECT deal_room_id, date_bin('15 minutes', last_viewed_at, timestamptz '2000-01-01 00:00+00'), 0, 0, 0, 1, 0
      FROM viewers WHERE total_views > 0
    UNION ALL
    SELECT deal_room_id, date_bin('15 minutes', at, timestamptz '2000-01-01 00:00+00'), 0, 0, 0, 0, 1
      FROM visits WHERE NOT internal
  ) parts
 GROUP BY deal_room_id, slot;
