import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.ts';

/**
 * The admin token check of every internal listener: `Authorization: Bearer <ADMIN_TOKEN>`,
 * compared in constant time (both sides hashed first, so their lengths never differ).
 * Returns the 401 to answer, or undefined when the token is right.
 */
export function adminTokenChecker(
  token: string,
): (header: string | string[] | undefined) => ApiError | undefined {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    if (!header || Array.isArray(header) || header.trim() === '') {
      return new ApiError('unauthorized', 'Admin token is required', { 'WWW-Authenticate': 'Bearer' });
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(given, expected)) {
      return new ApiError('unauthorized', 'Invalid admin token', { 'WWW-Authenticate': 'Bearer' });
    }
    return undefined;
  };
}
