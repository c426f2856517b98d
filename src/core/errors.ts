/** The closed set of error codes and the one status each maps to. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  download_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable_file: 422,
  rate_limit: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every error code, in the order of the table. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The one error type handlers throw; rendered as `{ error, code }` with its status. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred';

/**
 * A named error: the code it is answered with (and so the APIs' status) and its message; on a
 * page, also its title, and its status where a page says more than the code (410 for a link
 * no longer active). The message is the page's next step.
 */
export interface NamedError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly title?: string;
  readonly status?: number;
}

const check = 'Check what you entered';
const tooMany = 'Too many attempts';

/**
 * Every error the service names, once: the read and management APIs answer its code and
 * message as `{ error, code }`; the dashboard and the link page show its title and message.
 */
export const ERRORS = {
  keyRequired: { code: 'unauthorized', message: 'API key is required' },
  invalidKey: { code: 'unauthorized', message: 'Invalid API key' },
  routeNotFound: { code: 'not_found', message: 'Not found' },
  methodNotAllowed: { code: 'method_not_allowed', message: 'Method not allowed' },
  busy: { code: 'service_unavailable', message: 'Service is busy, try again shortly' },
  teamNotFound: { code: 'not_found', message: 'Team not found' },
  dealRoomNotFound: { code: 'not_found', message: 'Deal room not found' },
  documentNotFound: { code: 'not_found', message: 'Document not found' },
  documentHasNoFile: { code: 'not_found', message: 'This document has no file' },
  documentNotOnLink: { code: 'not_found', message: 'Document not found on this link' },
  linkNotFound: { code: 'not_found', message: 'Link not found' },
  apiKeyNotFound: { code: 'not_found', message: 'API key not found' },
  endpointNotFound: { code: 'not_found', message: 'Webhook endpoint not found' },
  deadLetterNotFound: { code: 'not_found', message: 'Dead letter not found' },
  userNotFound: { code: 'not_found', message: 'User not found' },
  viewNotFound: { code: 'not_found', message: 'View not found' },
  lastOwner: { code: 'conflict', message: 'A team keeps at least one owner' },
  // Pages: the dashboard's.
  notYours: {
    code: 'not_found',
    title: 'Not found',
    message: 'There is nothing at this address, or it is not your team’s.',
  },
  pageNotFound: { code: 'not_found', title: 'Page not found', message: 'There is nothing at this address.' },
  pageNotDrawn: {
    code: 'not_found',
    title: 'This page cannot be shown',
    message: 'It could not be drawn. The other pages of the document can be read.',
  },
  formExpired: {
    code: 'download_denied',
    title: 'This form has expired',
    message: 'Go back, reload the page and try again.',
  },
  readOnly: {
    code: 'download_denied',
    title: 'You cannot change this',
    message: 'Your role lets you read and export, not change.',
  },
  ownersOnly: {
    code: 'download_denied',
    title: 'Owners only',
    message: 'Only the team’s owners manage its users.',
  },
  entryRefused: { code: 'validation_error', title: check, message: 'Check the highlighted fields.' },
  unstorableText: {
    code: 'validation_error',
    title: check,
    message: 'A field holds a character that cannot be stored.',
  },
  chooseRole: { code: 'validation_error', title: check, message: 'Choose a role.' },
  chooseFile: {
    code: 'validation_error',
    title: 'Choose a file to upload',
    message: 'The form must send a file.',
  },
  noFileSent: { code: 'validation_error', title: 'Choose a file to upload', message: 'No file was sent.' },
  cannotNow: {
    code: 'conflict',
    title: 'That cannot be done now',
    message: 'It conflicts with the room as it is now.',
  },
  removeYourself: {
    code: 'conflict',
    title: 'That cannot be done now',
    message: 'You cannot remove yourself.',
  },
  fileTooLarge: {
    code: 'payload_too_large',
    title: 'The file is too large',
    message: 'Choose a smaller file.',
  },
  unsupportedFile: {
    code: 'unsupported_media_type',
    title: 'Unsupported file',
    message: 'Upload a PDF, PNG or JPEG.',
  },
  unprocessableFile: {
    code: 'unprocessable_file',
    title: 'This file cannot be shown',
    message: 'It has too many pages, or could not be drawn within the limits. Try another copy of it.',
  },
  invitationGone: {
    code: 'not_found',
    title: 'This invitation is no longer valid',
    message: 'It was used already or has expired. Ask for a new one.',
  },
  tooManySignIns: {
    code: 'rate_limit',
    title: tooMany,
    message: 'Too many failed sign-ins. Try again later.',
  },
  // Pages: a share link's.
  noSuchLink: {
    code: 'not_found',
    title: 'This link does not exist',
    message: 'Check the address you were given.',
  },
  linkNotActive: {
    code: 'not_found',
    status: 410,
    title: 'This link is no longer active',
    message: 'The people who shared it have turned it off or let it expire. Ask them for a new one.',
  },
  documentNotAvailable: {
    code: 'not_found',
    title: 'This document is not available',
    message: 'It may have been removed from this link.',
  },
  downloadsOff: {
    code: 'download_denied',
    title: 'Downloads are not allowed',
    message:
      'The people who shared this document have not allowed it to be downloaded. You can still read it online.',
  },
  tooManyLinkRequests: {
    code: 'rate_limit',
    title: tooMany,
    message: 'Too many requests from this browser or network. Wait a moment and try again.',
  },
  tooManyPasswords: {
    code: 'rate_limit',
    title: tooMany,
    message: 'Too many incorrect passwords. Try again later.',
  },
} as const satisfies Record<string, NamedError>;

export type ErrorName = keyof typeof ERRORS;

/** The named error, to throw; `message` where the words carry a value of the moment. */
export function fail(
  name: ErrorName,
  o: { headers?: Record<string, string>; message?: string } = {},
): ApiError {
  const named: NamedError = ERRORS[name];
  return new ApiError(named.code, o.message ?? named.message, o.headers ?? {});
}

export const apiErrors = {
  keyRequired: () => fail('keyRequired', { headers: { 'WWW-Authenticate': 'Bearer' } }),
  invalidKey: () => fail('invalidKey', { headers: { 'WWW-Authenticate': 'Bearer' } }),
  dealRoomNotFound: () => fail('dealRoomNotFound'),
  teamNotFound: () => fail('teamNotFound'),
  routeNotFound: () => fail('routeNotFound'),
  methodNotAllowed: () => fail('methodNotAllowed', { headers: { Allow: 'GET, HEAD' } }),
  busy: () => fail('busy', { headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) } }),
};

/** What a 503 tells a client to wait: the database queue clears in well under that. */
const BUSY_RETRY_AFTER_SECONDS = 1;
