-- The dashboard: a team's users, their invitations and sessions, and the team's audit log.

-- A person of one team. The email signs in (one account per address, whatever its case);
-- password_hash is null until the invitation is accepted.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  password_hash text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));
CREATE INDEX users_team_idx ON users (team_id, created_at);

-- An invitation address's token, stored as its SHA-256: single use, 7 days.
CREATE TABLE invitations (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX invitations_user_idx ON invitations (user_id);

-- A signed-in browser. The cookie holds a random token; only its SHA-256 is kept. Ending a
-- session deletes its row, so a stolen cookie is worth nothing after sign-out.
CREATE TABLE user_sessions (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  user_agent text NOT NULL DEFAULT '',
  address text NOT NULL DEFAULT ''
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);

-- Failed sign-ins, per account ('account:<email>') and per client address ('address:<ip>').
CREATE TABLE sign_in_failures (
  subject text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_idx ON sign_in_failures (subject, failed_at);

-- Every change made in the dashboard: who, what, when, before and after (secrets left out).
CREATE TABLE audit_log (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  user_id uuid,
  user_email text NOT NULL,
  action text NOT NULL,
  subject_type text NOT NULL,
  subject_id text,
  before jsonb,
  after jsonb
);
CREATE INDEX audit_log_team_idx ON audit_log (team_id, at DESC, id DESC);

-- One viewer's timeline reads their visits and downloads by viewer (views have their index).
CREATE INDEX visits_viewer_at_idx ON visits (viewer_id, at);
CREATE INDEX downloads_viewer_at_idx ON downloads (viewer_id, at);

-- The viewers table searched by the start of an email, within a room.
CREATE INDEX viewers_room_email_idx ON viewers (deal_room_id, lower(email) text_pattern_ops)
  WHERE total_views > 0;
