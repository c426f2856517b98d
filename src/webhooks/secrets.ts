import { randomBytes } from 'node:crypto';

/** An endpoint's signing secret: `whsec_` and 24 random bytes in base64 (Standard Webhooks). */
export const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
