import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { budgetOf, type RateDecision, type RateLimiter, type RateLimits } from './limiter.ts';

/**
 * Both sliding logs as sorted sets, checked and recorded by one Lua script in one round
 * trip: Redis runs a script alone, so concurrent requests from any number of processes
 * are counted exactly. KEYS: the key's log, the team's log. ARGV: now (ms), window (ms),
 * key limit, team limit, a unique member. Returns admitted (0/1), both counts, both
 * oldest scores (-1 when empty).
 */
const SLIDING_LOG = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cutoff = now - window
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', cutoff)
local keyCount = redis.call('ZCARD', KEYS[1])
local teamCount = redis.call('ZCARD', KEYS[2])
local admitted = 0
if keyCount < tonumber(ARGV[3]) and teamCount < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('PEXPIRE', KEYS[2], window)
  keyCount = keyCount + 1
  teamCount = teamCount + 1
  admitted = 1
end
local function oldest(key)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] then return first[2] end
  return '-1'
end
return { admitted, keyCount, teamCount, oldest(KEYS[1]), oldest(KEYS[2]) }
`;

type SlidingLogReply = [number, number, number, string, string];

interface WithSlidingLog {
  slidingLog(keyLog: string, teamLog: string, ...args: (string | number)[]): Promise<SlidingLogReply>;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & WithSlidingLog;

  constructor(
    redis: Redis,
    readonly limits: RateLimits,
    /** Keeps deployments that share one Redis database apart (REDIS_KEY_PREFIX). */
    private readonly prefix = 'dealroom:',
  ) {
    redis.defineCommand('slidingLog', { numberOfKeys: 2, lua: SLIDING_LOG });
    this.redis = redis as Redis & WithSlidingLog;
  }

  async consume({ keyId, teamId }: { keyId: string; teamId: string }, nowMs: number): Promise<RateDecision> {
    const { perKey, perTeam, windowMs } = this.limits;
    // One hash tag for both logs keeps them in one slot, as a script on Redis Cluster needs.
    const tag = `{${teamId}}`;
    const [admitted, keyCount, teamCount, keyOldest, teamOldest] = await this.redis.slidingLog(
      `${this.prefix}rl:${tag}:key:${keyId}`,
      `${this.prefix}rl:${tag}:team`,
      nowMs,
      windowMs,
      perKey,
      perTeam,
      `${nowMs}:${randomUUID()}`,
    );
    const oldest = (score: string) => (Number(score) < 0 ? undefined : Number(score));
    return {
      allowed: admitted === 1,
      key: budgetOf(perKey, keyCount, oldest(keyOldest), windowMs, nowMs),
      team: budgetOf(perTeam, teamCount, oldest(teamOldest), windowMs, nowMs),
    };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
