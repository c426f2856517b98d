/** Deal Room Analytics API v1 client. */

export interface DealRoom {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  documentCount: number;
  linkCount: number;
  totalViews: number;
  createdAt: string;
  updatedAt: string;
}

export interface DealRoomDetail extends DealRoom {
  uniqueViewers: number;
  avgViewDurationSeconds: number;
}

export interface Document {
  id: string;
  name: string;
  displayName: string | null;
  sourceType: 'upload' | 'url' | 'google_drive' | 'dropbox' | 'onedrive' | 'box' | 'notion';
  pageCount: number;
  status: 'draft' | 'published' | 'archived';
  position: number;
  createdAt: string;
  updatedAt: string;
}

export interface Link {
  id: string;
  name: string;
  shortId: string;
  url: string;
  isActive: boolean;
  requiresEmail: boolean;
  requiresPassword: boolean;
  expiresAt: string | null;
  totalClicks: number;
  createdAt: string;
}

export interface Viewer {
  id: string;
  email: string;
  name: string;
  firstViewedAt: string;
  lastViewedAt: string;
  totalViews: number;
  totalDurationSeconds: number;
  documentsViewed: number;
  linkName: string;
}

export type Period = '7d' | '30d' | '90d' | 'all';

export interface Analytics {
  dealRoomId: string;
  period: Period;
  totalViews: number;
  uniqueViewers: number;
  avgViewDurationSeconds: number;
  totalDownloads: number;
  topDocuments: { documentId: string; name: string; views: number; avgDurationSeconds: number }[];
  topLinks: { linkId: string; name: string; clicks: number }[];
  viewsOverTime: { date: string; views: number }[];
}

export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

/** Every item of a list, page after page (`for await`), or one page at a time. */
export interface PageIterator<T> extends AsyncIterable<T> {
  page(page: number): Promise<{ data: T[]; pagination: Pagination }>;
  toArray(): Promise<T[]>;
}

export interface ClientOptions {
  /** A key from the dashboard: dr_live_... */
  apiKey: string;
  /** Default http://127.0.0.1:8080 */
  baseUrl?: string;
  /** Retries of a 429, a 5xx or a network failure. Default 3. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60,000. */
  maxRetryDelayMs?: number;
  /** Per request. Default 30,000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** How to wait between retries (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

export interface ListOptions {
  /** Items per request while iterating, 1 to 100. Default 100. */
  perPage?: number;
}

export declare class DealRoomClient {
  constructor(options: ClientOptions);
  readonly dealRooms: {
    list(params?: ListOptions & { status?: 'active' | 'archived' }): PageIterator<DealRoom>;
    get(id: string): Promise<DealRoomDetail>;
  };
  readonly documents: { list(dealRoomId: string, params?: ListOptions): PageIterator<Document> };
  readonly links: { list(dealRoomId: string, params?: ListOptions): PageIterator<Link> };
  readonly viewers: { list(dealRoomId: string, params?: ListOptions): PageIterator<Viewer> };
  readonly analytics: { get(dealRoomId: string, params?: { period?: Period }): Promise<Analytics> };
  /** GET any API path; resolves with the JSON body. */
  request<T = unknown>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
}

export type ErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'rate_limit'
  | 'validation_error'
  | 'method_not_allowed'
  | 'internal_error'
  | 'network_error'
  | (string & {});

export declare class DealRoomApiError extends Error {
  /** HTTP status; 0 for a network failure. */
  readonly status: number;
  readonly code: ErrorCode;
  /** X-Request-Id of the failed response: quote it to support. */
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
}

/** A view, as view.started and view.completed carry it. */
export interface View {
  id: string;
  dealRoomId: string;
  documentId: string;
  linkId: string;
  viewerId: string;
  startedAt: string;
  durationSeconds: number;
}

/** A download, as download.created and download.denied carry it. */
export interface Download {
  id: string;
  dealRoomId: string;
  documentId: string;
  linkId: string;
  viewerId: string;
  at: string;
}

/** A viewer in an event: the Viewer fields and its room. */
export interface ViewerInRoom extends Viewer {
  dealRoomId: string;
}

/** Each event type and what its `data` is: the resource right after the change. */
export interface EventData {
  'deal_room.created': DealRoomDetail;
  'deal_room.updated': DealRoomDetail;
  'deal_room.archived': DealRoomDetail;
  'deal_room.restored': DealRoomDetail;
  'deal_room.deleted': DealRoomDetail;
  'document.created': Document;
  'document.updated': Document;
  'document.published': Document;
  'document.unpublished': Document;
  'document.deleted': Document;
  'link.created': Link;
  'link.updated': Link;
  'link.deactivated': Link;
  'link.expired': Link;
  'link.deleted': Link;
  'viewer.created': ViewerInRoom;
  'viewer.returned': ViewerInRoom;
  'view.started': View;
  'view.completed': View;
  'download.created': Download;
  'download.denied': Download;
}

export type EventType = keyof EventData;

/** What a receiver gets: one union over `type`, so a switch on it narrows `data`. */
export type WebhookEvent<T extends EventType = EventType> = {
  [K in T]: {
    id: string;
    type: K;
    createdAt: string;
    apiVersion: string;
    teamId: string;
    data: EventData[K];
  };
}[T];

export declare class WebhookVerificationError extends Error {}

/**
 * Verifies a delivery's signature and timestamp and returns its payload; throws
 * WebhookVerificationError otherwise. Pass the raw body as received.
 */
export declare function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string | string[],
  options?: { toleranceSeconds?: number; now?: Date },
): Promise<WebhookEvent>;
