/**
 * Who a viewer is in a room, by the rules of contract.md section 2: an email (trimmed,
 * lower-cased) when one is given, otherwise an anonymous visitor id. The import and live
 * tracking both decide it here, each reporting a problem in its own error type.
 */
export type ViewerIdentity =
  | { kind: 'email'; email: string; name: string }
  | { kind: 'visitor'; visitorId: string; name: string };

/** What is wrong with a viewer: its email is not an address, or it has neither email nor visitor id. */
export type ViewerProblem = 'email' | 'missing';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL = 320;
const MAX_VISITOR_ID = 200;

export function viewerIdentityOf(viewer: {
  email?: string | null | undefined;
  name?: string | null | undefined;
  visitorId?: string | null | undefined;
}): ViewerIdentity | ViewerProblem {
  const name = viewer.name?.trim() ?? '';
  const email = viewer.email?.trim().toLowerCase() ?? '';
  if (email !== '') {
    return email.length > MAX_EMAIL || !EMAIL.test(email) ? 'email' : { kind: 'email', email, name };
  }
  const visitorId = viewer.visitorId?.trim() ?? '';
  if (visitorId === '' || (viewer.visitorId?.length ?? 0) > MAX_VISITOR_ID) return 'missing';
  return { kind: 'visitor', visitorId, name };
}

/** The key that makes one viewer of a room (viewers.identity). */
export function identityKey(viewer: ViewerIdentity): string {
  return viewer.kind === 'email' ? `email:${viewer.email}` : `visitor:${viewer.visitorId}`;
}
