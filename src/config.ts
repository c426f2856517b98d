import { scryptN } from './core/passwords.ts';

/** The read API's request budgets: per key and per team, in a sliding window. */
export interface RateLimits {
  perKey: number;
  perTeam: number;
  windowMs: number;
}

export const DEFAULT_LIMITS: RateLimits = { perKey: 1000, perTeam: 3000, windowMs: 3_600_000 };

/** The link pages' limits per visitor cookie (an address gets several times more: link-page/limits.ts). */
export interface LinkPageLimits {
  /** LINK_PAGES_PER_MINUTE: gate, room and viewer pages a visitor may load in a minute. */
  pagesPerMinute: number;
  /** LINK_VIEWS_PER_MINUTE: documents a visitor may open (views started) in a minute. */
  viewsPerMinute: number;
  /** LINK_REPORTS_PER_MINUTE: reading reports a visitor may send in a minute (a reader sends 6). */
  reportsPerMinute: number;
  /** LINK_NEW_VISITORS_PER_HOUR: anonymous visitors one address may become in an hour. */
  newVisitorsPerHour: number;
}

export const DEFAULT_LINK_PAGE_LIMITS: LinkPageLimits = {
  pagesPerMinute: 120,
  viewsPerMinute: 30,
  reportsPerMinute: 120,
  newVisitorsPerHour: 100,
};

/** The limits every file is read, drawn and stamped within (contract.md section 7). */
export interface FileLimits {
  /** FILE_MAX_PAGES: a PDF with more pages is refused (422 unprocessable_file). */
  maxPages: number;
  /** FILE_THREAD_MEMORY_MB: each file thread's heap; past it, the task fails and the thread is replaced. */
  memoryMb: number;
  /** FILE_TASK_SECONDS: the longest one task (counting a file, drawing a few pages, stamping) may take. */
  taskSeconds: number;
  /** The largest image, in pixels, drawn or decoded (an embedded image, an uploaded image). */
  maxPixels: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = {
  maxPages: 2000,
  memoryMb: 512,
  taskSeconds: 60,
  maxPixels: 40_000_000,
};

/**
 * The service's configuration, read from the environment once at start. Every problem is
 * collected so an operator sees them all at once; the result is frozen and passed in.
 */
export interface Config {
  /** A postgres:// URL selects PostgreSQL; undefined selects the embedded store. */
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  appUrl: string;
  logLevel: LogLevel;
  redisUrl: string | undefined;
  /** Before every Redis key, so deployments sharing one Redis database stay apart. */
  redisKeyPrefix: string;
  rateLimits: RateLimits;
  /** PostgreSQL connections per process, and the bounded wait for one (then a 503). */
  pool: { size: number; maxWaiting: number; maxWaitMs: number };
  /** The web app (the link page): its listener, and the largest document file accepted. */
  web: { port: number; host: string; fileMaxBytes: number };
  files: FileLimits;
  linkPages: LinkPageLimits;
  /** DASHBOARD_IDLE_HOURS: a dashboard session unused this long has ended (default 12). */
  dashboardIdleHours: number;
  /**
   * ANALYTICS_CACHE_MB: rendered analytics bodies each read API process keeps, valid while
   * their room's figures are unchanged (default 32; 0 keeps none).
   */
  analyticsCacheMb: number;
  /**
   * LIST_CACHE_MB: rendered rooms, pages of the rooms list and of the rooms' documents, links
   * and viewers each read API process keeps, valid while what they were rendered from is
   * unchanged (default 32; 0 keeps none).
   */
  listCacheMb: number;
  /** The internal management API: started only when an admin token is set. */
  management: { adminToken: string | undefined; port: number; host: string };
  /**
   * MIGRATE_ON_START: `serve` applies pending migrations as it starts. Unset: yes for the
   * embedded store and the demo, no on PostgreSQL (run `dealroom migrate` as its own step).
   */
  migrateOnStart: boolean | undefined;
  /**
   * SMTP_URL (smtp:// or smtps://): invitations, codes and notifications are mailed from
   * SMTP_FROM; unset: shown only. SMTP_TIMEOUT_SECONDS: how long the SMTP server has to
   * connect, greet and answer each step (20). VISIT_EMAIL_DELAY_SECONDS: a visit's email waits
   * this long after the visit starts, to say what was read (180).
   */
  mail: { smtpUrl: string | undefined; from: string; timeoutSeconds: number; visitEmailDelaySeconds: number };
  webhooks: {
    /** http:// and private, loopback or link-local addresses allowed (development and tests only). */
    allowPrivateUrls: boolean;
    /** The first retry's delay; each next one is 4 times longer. */
    retryBaseMs: number;
    /** How long a receiver has to answer (10 s, as the contract says; shorter in tests). */
    timeoutMs: number;
  };
}

/** An admin token shorter than this is refused: it guards every write. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const problems: string[] = [];
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };

  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded store)',
    );
  }

  const port = parsePort(read('PORT'), 8080, 'PORT', problems);

  const appUrl = (read('APP_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
  if (!isHttpUrl(appUrl)) problems.push('APP_URL must be an http:// or https:// URL');

  const logLevel = (read('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const redisUrl = read('REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }

  const redisKeyPrefix = read('REDIS_KEY_PREFIX') ?? 'dealroom:';
  if (!/^[A-Za-z0-9:_.{}-]{1,100}$/.test(redisKeyPrefix)) {
    problems.push('REDIS_KEY_PREFIX must be 1 to 100 of A-Z a-z 0-9 : _ . - { }');
  }

  const positive = (name: string, fallback: number) => {
    const value = read(name);
    if (value === undefined) return fallback;
    if (!/^[1-9][0-9]{0,8}$/.test(value)) {
      problems.push(`${name} must be a whole number from 1 to 999999999`);
      return fallback;
    }
    return Number(value);
  };
  const nonNegative = (name: string, fallback: number) => {
    const value = read(name);
    if (value === undefined) return fallback;
    if (!/^(0|[1-9][0-9]{0,6})$/.test(value)) {
      problems.push(`${name} must be a whole number from 0 to 9999999`);
      return fallback;
    }
    return Number(value);
  };
  const rateLimits: RateLimits = {
    perKey: positive('RATE_LIMIT_PER_KEY', DEFAULT_LIMITS.perKey),
    perTeam: positive('RATE_LIMIT_PER_TEAM', DEFAULT_LIMITS.perTeam),
    windowMs: positive('RATE_LIMIT_WINDOW_SECONDS', DEFAULT_LIMITS.windowMs / 1000) * 1000,
  };

  const pool = {
    size: positive('DB_POOL_SIZE', 10),
    maxWaiting: positive('DB_POOL_MAX_WAITING', 200),
    maxWaitMs: positive('DB_POOL_WAIT_MS', 2000),
  };

  const adminToken = read('ADMIN_TOKEN');
  if (adminToken !== undefined && (adminToken.length < MIN_ADMIN_TOKEN_LENGTH || /\s/.test(adminToken))) {
    problems.push(`ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters without spaces`);
  }
  const management = {
    adminToken,
    port: parsePort(read('MANAGEMENT_PORT'), 8081, 'MANAGEMENT_PORT', problems),
    host: read('MANAGEMENT_HOST') ?? '127.0.0.1',
  };

  const web = {
    port: parsePort(read('WEB_PORT'), 3000, 'WEB_PORT', problems),
    host: read('WEB_HOST') ?? '127.0.0.1',
    fileMaxBytes: positiveBytes(read('FILE_MAX_BYTES'), problems),
  };

  const files: FileLimits = {
    maxPages: positive('FILE_MAX_PAGES', DEFAULT_FILE_LIMITS.maxPages),
    memoryMb: positive('FILE_THREAD_MEMORY_MB', DEFAULT_FILE_LIMITS.memoryMb),
    taskSeconds: positive('FILE_TASK_SECONDS', DEFAULT_FILE_LIMITS.taskSeconds),
    maxPixels: DEFAULT_FILE_LIMITS.maxPixels,
  };

  const linkPages: LinkPageLimits = {
    pagesPerMinute: positive('LINK_PAGES_PER_MINUTE', DEFAULT_LINK_PAGE_LIMITS.pagesPerMinute),
    viewsPerMinute: positive('LINK_VIEWS_PER_MINUTE', DEFAULT_LINK_PAGE_LIMITS.viewsPerMinute),
    reportsPerMinute: positive('LINK_REPORTS_PER_MINUTE', DEFAULT_LINK_PAGE_LIMITS.reportsPerMinute),
    newVisitorsPerHour: positive('LINK_NEW_VISITORS_PER_HOUR', DEFAULT_LINK_PAGE_LIMITS.newVisitorsPerHour),
  };

  const scryptNText = read('PASSWORD_SCRYPT_N');
  if (scryptNText !== undefined && scryptN(scryptNText) === undefined) {
    problems.push('PASSWORD_SCRYPT_N must be a power of two from 1024 to 1048576');
  }

  const dashboardIdleHours = positive('DASHBOARD_IDLE_HOURS', 12);
  const analyticsCacheMb = nonNegative('ANALYTICS_CACHE_MB', 32);
  const listCacheMb = nonNegative('LIST_CACHE_MB', 32);

  const migrateOnStartText = read('MIGRATE_ON_START')?.toLowerCase();
  if (migrateOnStartText !== undefined && migrateOnStartText !== 'true' && migrateOnStartText !== 'false') {
    problems.push('MIGRATE_ON_START must be true or false');
  }
  const migrateOnStart = migrateOnStartText === undefined ? undefined : migrateOnStartText === 'true';

  const allowPrivate = (read('WEBHOOK_ALLOW_PRIVATE_URLS') ?? 'false').toLowerCase();
  if (allowPrivate !== 'true' && allowPrivate !== 'false') {
    problems.push('WEBHOOK_ALLOW_PRIVATE_URLS must be true or false');
  }
  const webhooks = {
    allowPrivateUrls: allowPrivate === 'true',
    retryBaseMs: positive('WEBHOOK_RETRY_BASE_MS', 30_000),
    timeoutMs: positive('WEBHOOK_TIMEOUT_MS', 10_000),
  };

  const smtpUrl = read('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s/]+/.test(smtpUrl)) {
    problems.push('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const mail = {
    smtpUrl,
    from: read('SMTP_FROM') ?? 'Deal Room <no-reply@localhost>',
    timeoutSeconds: positive('SMTP_TIMEOUT_SECONDS', 20),
    visitEmailDelaySeconds: nonNegative('VISIT_EMAIL_DELAY_SECONDS', 180),
  };

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    databaseUrl,
    dataDir: read('DATA_DIR') ?? './data',
    port,
    host: read('HOST') ?? '127.0.0.1',
    appUrl,
    logLevel: logLevel as LogLevel,
    redisUrl,
    redisKeyPrefix,
    rateLimits,
    pool,
    management,
    web,
    files,
    linkPages,
    dashboardIdleHours,
    analyticsCacheMb,
    listCacheMb,
    webhooks,
    mail,
    migrateOnStart,
  });
}

/** The settings every write of a process reads (write/context.ts WriteSetup). */
export function writeSettings(config: Readonly<Config>) {
  return {
    appUrl: config.appUrl,
    allowPrivateUrls: config.webhooks.allowPrivateUrls,
    mailConfigured: config.mail.smtpUrl !== undefined,
    visitEmailDelayMs: config.mail.visitEmailDelaySeconds * 1000,
  };
}

/** FILE_MAX_BYTES: 1 byte to 10 GiB; 100 MiB when unset. */
function positiveBytes(value: string | undefined, problems: string[]): number {
  if (value === undefined) return 100 * 1024 * 1024;
  if (!/^[1-9][0-9]{0,10}$/.test(value) || Number(value) > 10 * 1024 ** 3) {
    problems.push('FILE_MAX_BYTES must be a whole number of bytes from 1 to 10737418240');
    return 100 * 1024 * 1024;
  }
  return Number(value);
}

export function parsePort(
  value: string | undefined,
  fallback: number,
  name: string,
  problems: string[],
): number {
  if (value === undefined) return fallback;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    problems.push(`${name} must be a port number from 0 to 65535`);
    return fallback;
  }
  return port;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
