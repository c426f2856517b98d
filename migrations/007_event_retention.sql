-- Events are kept 30 days once every delivery of theirs has succeeded (their payloads hold
-- viewers' emails): the worker's pruning finds them by age.
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);
