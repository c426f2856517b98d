-- The whole platform's data model. Every table that holds team data reaches its team
-- through deal_rooms.team_id, and every read API query filters on it.

CREATE TABLE teams (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- SHA-256 of the whole plain key, hex; the plain key is never stored.
  key_hash text NOT NULL UNIQUE,
  -- The first characters of the key, safe to show so an operator can tell keys apart.
  display_prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_team_idx ON api_keys (team_id, created_at DESC, id);

CREATE TABLE deal_rooms (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX deal_rooms_team_updated_idx ON deal_rooms (team_id, updated_at DESC, id);
CREATE INDEX deal_rooms_team_status_updated_idx ON deal_rooms (team_id, status, updated_at DESC, id);

CREATE TABLE documents (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  name text NOT NULL,
  display_name text,
  source_type text NOT NULL
    CHECK (source_type IN ('upload', 'url', 'google_drive', 'dropbox', 'onedrive', 'box', 'notion')),
  page_count integer NOT NULL CHECK (page_count >= 0),
  status text NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
  position integer NOT NULL,
  -- null: follow the link's allow_download; true/false: always/never downloadable.
  download_override boolean,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX documents_published_position_idx ON documents (deal_room_id, position, id)
  WHERE status = 'published';

CREATE TABLE links (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  name text NOT NULL,
  short_id text NOT NULL UNIQUE,
  enabled boolean NOT NULL DEFAULT true,
  requires_email boolean NOT NULL DEFAULT false,
  -- scrypt hash of the link password; never leaves the database layer.
  password_hash text,
  expires_at timestamptz,
  allow_download boolean NOT NULL DEFAULT true,
  -- false when the link shows only the documents listed in link_documents.
  all_documents boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX links_room_created_idx ON links (deal_room_id, created_at DESC, id);

CREATE TABLE link_documents (
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  PRIMARY KEY (link_id, document_id)
);
CREATE INDEX link_documents_document_idx ON link_documents (document_id);

-- One person in one room: identified by the trimmed, lower-cased email, or by an anonymous
-- visitor id. The engagement columns are derived from views (see refreshViewerStats) so the
-- viewer list pages without aggregating every view of the room.
CREATE TABLE viewers (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  identity text NOT NULL,
  email text NOT NULL DEFAULT '',
  name text NOT NULL DEFAULT '',
  total_views integer NOT NULL DEFAULT 0,
  total_duration_seconds bigint NOT NULL DEFAULT 0,
  documents_viewed integer NOT NULL DEFAULT 0,
  first_viewed_at timestamptz,
  last_viewed_at timestamptz,
  last_link_id uuid REFERENCES links (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (deal_room_id, identity)
);
-- Serves the viewer list's order, and (with the included totals) the room's all-time figures
-- and a period's unique viewers (last_viewed_at >= start) without touching the views.
CREATE INDEX viewers_room_recent_idx ON viewers (deal_room_id, last_viewed_at DESC, id)
  INCLUDE (total_views, total_duration_seconds) WHERE total_views > 0;

CREATE TABLE visits (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  viewer_id uuid NOT NULL REFERENCES viewers (id) ON DELETE CASCADE,
  at timestamptz NOT NULL
);
CREATE INDEX visits_link_idx ON visits (link_id);
CREATE INDEX visits_room_at_idx ON visits (deal_room_id, at) INCLUDE (link_id);

CREATE TABLE views (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  viewer_id uuid NOT NULL REFERENCES viewers (id) ON DELETE CASCADE,
  -- the name the viewer gave with this view ('' when none)
  viewer_name text NOT NULL DEFAULT '',
  started_at timestamptz NOT NULL,
  duration_seconds integer NOT NULL DEFAULT 0 CHECK (duration_seconds >= 0),
  completed_at timestamptz
);
CREATE INDEX views_room_started_idx ON views (deal_room_id, started_at)
  INCLUDE (document_id, viewer_id, duration_seconds);
CREATE INDEX views_viewer_started_idx ON views (viewer_id, started_at DESC, id);
CREATE INDEX views_document_idx ON views (document_id);
CREATE INDEX views_link_idx ON views (link_id);

CREATE TABLE downloads (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  viewer_id uuid NOT NULL REFERENCES viewers (id) ON DELETE CASCADE,
  at timestamptz NOT NULL
);
CREATE INDEX downloads_room_at_idx ON downloads (deal_room_id, at);
CREATE INDEX downloads_document_idx ON downloads (document_id);
CREATE INDEX downloads_link_idx ON downloads (link_id);

-- Webhooks: endpoints, the events recorded in the same transaction as their change (the
-- outbox), one delivery per event and endpoint, its attempts, and the dead letters.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  url text NOT NULL,
  -- null: all event types
  event_types text[],
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_team_idx ON webhook_endpoints (team_id, created_at, id);

CREATE TABLE webhook_events (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_events_team_created_idx ON webhook_events (team_id, created_at);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
  WHERE state = 'pending';

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  status integer,
  duration_ms integer NOT NULL,
  error text
);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id);

CREATE TABLE webhook_dead_letters (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL UNIQUE REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  failed_at timestamptz NOT NULL,
  replayed_at timestamptz
);
CREATE INDEX webhook_dead_letters_team_idx ON webhook_dead_letters (team_id, failed_at DESC, id);
