-- The write side: answers kept for Idempotency-Key retries, refused downloads, and the
-- webhook endpoint's on/off switch.

-- A POST carrying an Idempotency-Key: the first answer, kept for 24 hours. The row is
-- inserted in the transaction of the change itself, so a retry either finds the change and
-- its answer, or neither. A concurrent retry waits on the key's row until the first commits.
CREATE TABLE idempotency_keys (
  key text PRIMARY KEY,
  -- SHA-256 of the method, path and body: the same key with another request is a conflict.
  fingerprint text NOT NULL,
  -- The operation's result as JSON (never a plain API key); null only inside the claiming
  -- transaction.
  result jsonb,
  created_at timestamptz NOT NULL
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- A download the link's or document's setting refused (download.denied). Not a download:
-- no figure counts it.
CREATE TABLE download_refusals (
  id uuid PRIMARY KEY,
  deal_room_id uuid NOT NULL,
  document_id uuid NOT NULL,
  link_id uuid NOT NULL,
  viewer_id uuid NOT NULL,
  at timestamptz NOT NULL
);

-- A disabled endpoint keeps its settings and receives nothing.
ALTER TABLE webhook_endpoints ADD COLUMN enabled boolean NOT NULL DEFAULT true;
