-- Per-day rollups of each room's events, so analytics for any period read one row per day
-- (and document or link) instead of one per event. Days are UTC. They are recomputed from
-- the event tables by refreshDailyRollups in the same transaction as any write of events.

CREATE TABLE room_daily_views (
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  day date NOT NULL,
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  views integer NOT NULL,
  duration_seconds bigint NOT NULL,
  PRIMARY KEY (deal_room_id, day, document_id)
);

CREATE TABLE room_daily_visits (
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  day date NOT NULL,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  visits integer NOT NULL,
  PRIMARY KEY (deal_room_id, day, link_id)
);

CREATE TABLE room_daily_downloads (
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  day date NOT NULL,
  downloads integer NOT NULL,
  PRIMARY KEY (deal_room_id, day)
);
