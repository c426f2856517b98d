-- Webhook delivery: claims with a lease, the per-endpoint queue, and link expiry events.

-- A worker claims a delivery by moving its next_attempt_at to the end of a lease and
-- setting claim_token; it records the attempt only while the token is still its own. A
-- worker that dies mid-delivery leaves the claim to lapse, and another takes it. The
-- lease's end is next_attempt_at, so locked_until would only repeat it.
ALTER TABLE webhook_deliveries ADD COLUMN claim_token uuid;
ALTER TABLE webhook_deliveries DROP COLUMN locked_until;
-- Claims go endpoint by endpoint, so that one slow endpoint's backlog is never scanned
-- to find another's work.
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE state = 'pending';
DROP INDEX webhook_deliveries_due_idx;

-- link.expired: the expiry whose passing was announced (or needed no announcement: the
-- link was created, imported or changed with an expiry already past). When expires_at
-- passes and differs from it, the worker raises the event and records it here, so moving
-- the expiry later makes a new one.
ALTER TABLE links ADD COLUMN expiry_announced_for timestamptz;
UPDATE links SET expiry_announced_for = expires_at WHERE expires_at <= now();
CREATE INDEX links_expiry_due_idx ON links (expires_at)
  WHERE expires_at IS NOT NULL AND expiry_announced_for IS DISTINCT FROM expires_at;

-- The payload is sent as it was written: json keeps its text (and so the order of its
-- fields) where jsonb would reorder them.
ALTER TABLE webhook_events ALTER COLUMN payload TYPE json USING payload::json;
