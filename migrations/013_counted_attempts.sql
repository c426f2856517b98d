-- Password attempts are counted before any password is checked: each attempt is written as a
-- failure under a lock on its subject, and removed again when its password was right. A
-- burst sent at once is counted one by one, so the sixth of six is refused whatever their order.
ALTER TABLE gate_failures ADD COLUMN attempt uuid;
ALTER TABLE sign_in_failures ADD COLUMN attempt uuid;
CREATE INDEX gate_failures_attempt_idx ON gate_failures (attempt) WHERE attempt IS NOT NULL;
CREATE INDEX sign_in_failures_attempt_idx ON sign_in_failures (attempt) WHERE attempt IS NOT NULL;
