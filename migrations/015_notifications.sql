-- The team is told: visit emails and daily digests, written to an outbox of their own in the
-- transaction of the visit, and sent (or, without SMTP, kept) by the worker.

-- Per user: instant visit emails, a daily digest at an hour of the user's timezone, or none.
ALTER TABLE users ADD COLUMN visit_emails text NOT NULL DEFAULT 'instant'
  CHECK (visit_emails IN ('instant', 'digest', 'off'));
ALTER TABLE users ADD COLUMN digest_hour integer NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23);

-- Who follows which room: a room's creator and a link's creator follow it from then on; a
-- row says so, or that the user stopped (Unfollow, or an email's unsubscribe link).
CREATE TABLE room_follows (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  following boolean NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (user_id, deal_room_id)
);
CREATE INDEX room_follows_room_idx ON room_follows (deal_room_id) WHERE following;

-- One row per email to send: a visit's (once per user and visit) or a day's digest (once per
-- user and day). The worker claims due rows with a lease, writes what it sent, and retries.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('visit', 'digest')),
  deal_room_id uuid REFERENCES deal_rooms (id) ON DELETE CASCADE,
  visit_id uuid REFERENCES visits (id) ON DELETE CASCADE,
  viewer_id uuid,
  digest_day date,
  due_at timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'sent', 'kept', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  lease_until timestamptz,
  subject text,
  body_text text,
  error text,
  unsubscribe_sha256 text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (user_id, visit_id),
  UNIQUE (user_id, kind, digest_day)
);
CREATE INDEX notifications_due_idx ON notifications (due_at) WHERE state IN ('pending', 'sending');
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC);
CREATE INDEX notifications_visit_idx ON notifications (visit_id) WHERE visit_id IS NOT NULL;
CREATE UNIQUE INDEX notifications_unsubscribe_idx ON notifications (unsubscribe_sha256)
  WHERE unsubscribe_sha256 IS NOT NULL;

-- Refused downloads are shown: in a room's overview and activity, a viewer's timeline, emails.
CREATE INDEX download_refusals_room_idx ON download_refusals (deal_room_id, at DESC);
CREATE INDEX download_refusals_viewer_idx ON download_refusals (viewer_id, at);
