-- Test events sent from the dashboard: not events of the catalogue (nothing is retried), but
-- listed with an endpoint's attempts so the team sees what its receiver answered.
CREATE TABLE webhook_test_sends (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  sent_at timestamptz NOT NULL,
  sent_by text NOT NULL,
  status integer,
  duration_ms integer NOT NULL,
  error text
);
CREATE INDEX webhook_test_sends_endpoint_idx ON webhook_test_sends (endpoint_id, sent_at DESC);
