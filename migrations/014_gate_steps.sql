-- The gate knows who: a link may mail a code to prove the email, keep emails and domains in or
-- out, and ask for an agreement before the room opens.
ALTER TABLE links ADD COLUMN verify_email boolean NOT NULL DEFAULT false;
-- Emails and '@domain' entries, lower-case, domains in their ASCII (punycode) form.
ALTER TABLE links ADD COLUMN allow_list text[] NOT NULL DEFAULT '{}';
ALTER TABLE links ADD COLUMN block_list text[] NOT NULL DEFAULT '{}';
ALTER TABLE links ADD COLUMN agreement text;

-- A team's own domains ('@domain' entries, as the lists) and its timezone (an IANA name).
ALTER TABLE teams ADD COLUMN internal_domains text[] NOT NULL DEFAULT '{}';
ALTER TABLE teams ADD COLUMN timezone text NOT NULL DEFAULT 'UTC';

-- A verification code mailed by a link's gate to one browser, stored as its SHA-256: good for
-- 10 minutes and 5 tries, each try counted before the code is compared.
CREATE TABLE gate_codes (
  id uuid PRIMARY KEY,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  email text NOT NULL,
  code_sha256 text NOT NULL,
  tries integer NOT NULL DEFAULT 0,
  sent_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX gate_codes_sent_idx ON gate_codes (link_id, lower(email), sent_at);

-- What the gate recorded besides visits: an email refused by the link's lists, an agreement
-- accepted (with the text's SHA-256, as it read then).
CREATE TABLE gate_records (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL REFERENCES deal_rooms (id) ON DELETE CASCADE,
  link_id uuid NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('refused', 'agreed')),
  at timestamptz NOT NULL,
  email text,
  name text,
  address text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  agreement_sha256 text
);
CREATE INDEX gate_records_room_idx ON gate_records (deal_room_id, at DESC);
CREATE INDEX gate_records_email_idx ON gate_records (deal_room_id, lower(email), at);

-- A visit whose email the gate proved with a code.
ALTER TABLE visits ADD COLUMN verified boolean NOT NULL DEFAULT false;

-- The team's own people (its users' emails, its internal domains) open links as anyone does,
-- but what they do is marked internal and counted in no figure and no event.
ALTER TABLE visits ADD COLUMN internal boolean NOT NULL DEFAULT false;
ALTER TABLE views ADD COLUMN internal boolean NOT NULL DEFAULT false;
ALTER TABLE downloads ADD COLUMN internal boolean NOT NULL DEFAULT false;
ALTER TABLE download_refusals ADD COLUMN internal boolean NOT NULL DEFAULT false;
CREATE INDEX visits_internal_idx ON visits (deal_room_id, at DESC) WHERE internal;

-- A user may read the dashboard in a timezone of their own (null: the team's).
ALTER TABLE users ADD COLUMN timezone text;
