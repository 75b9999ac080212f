import Redis from 'ioredis';
import type { StackView } from './stack';

/**
 * As after a 503 while a replica died: the request went through, the gateway's record of its
 * Idempotency-Key did not survive. Deletes that record, so the retry reaches the service again.
 */
export const forgetIdempotencyRecord = async (stack: StackView, key: string): Promise<void> => {
  const redis = new Redis(stack.env['REDIS_URL']!);
  try {
    const records = await redis.keys(`${stack.env['REDIS_KEY_PREFIX']}*idem:*:${key}`);
    if (records.length !== 1) throw new Error(`Expected one idempotency record for ${key}, found ${records.length}.`);
    await redis.del(...records);
  } finally {
    redis.disconnect();
  }
};
