-- Each secret replaced by a rotation keeps signing for 24 hours of its own: a second rotation
-- within the day no longer drops the first one's predecessor at once. An operator can retire
-- them all at once (a leaked secret).
ALTER TABLE webhook_endpoints ADD COLUMN previous_secrets jsonb NOT NULL DEFAULT '[]';

UPDATE webhook_endpoints
   SET previous_secrets = jsonb_build_array(
         jsonb_build_object('secret', previous_secret, 'expiresAt', previous_secret_expires_at))
 WHERE previous_secret IS NOT NULL AND previous_secret_expires_at IS NOT NULL;

ALTER TABLE webhook_endpoints DROP COLUMN previous_secret, DROP COLUMN previous_secret_expires_at;
