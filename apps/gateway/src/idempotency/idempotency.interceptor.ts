import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import {
  DomainError,
  type ErrorBody,
  idempotencyScopeKey,
  idempotencyScopeOf,
  invalidInput,
  requestFingerprint,
} from '@corridor/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, map, type Observable, of, switchMap, throwError } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/request-context';
import { toHttpError } from '../http/errors';
import { RouteTable } from '../http/route-table';
import { IdempotencyStore, isErrorOutcome, type StoredOutcome } from './idempotency.store';
import { isProvisional } from './provisional';
import { createLogger } from '@corridor/messaging';
import { GatewayMetrics } from '../http/gateway-metrics';

const ACCEPTABLE_KEY = /^[\x21-\x7e]{1,255}$/;

// An outcome worth replaying is one the services decided. A 5xx or an outage says nothing
// about the request, a gateway validation failure means nothing ran, and a 401 (a missing or bad
// credential or wallet stamp, which headers carry and the key's fingerprint does not) or a 429
// refused the caller before anything was decided: in all of these the key is released so the
// client can retry, correct the body or sign the request, under the same key.
const isReplayable = (body: ErrorBody): boolean =>
  body.status < 500 && body.status !== 401 && body.status !== 429 && body.code !== 'INVALID_INPUT';

/**
 * Idempotency-Key on POST: the first outcome for a key, in its actor's scope (the platform, or one
 * of its agents), is replayed to every repeat for 24 h. A reply the route marks provisional (a
 * signed retry's 202 challenge) is not an outcome: the key is released for the request that follows.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly routes: RouteTable,
    private readonly metrics: GatewayMetrics,
  ) {}

  intercept(host: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = host.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.corridor) return next.handle();
    if (typeof key !== 'string' || !ACCEPTABLE_KEY.test(key)) {
      return throwError(() => invalidInput('Idempotency-Key must be 1 to 255 printable ASCII characters.', { field: 'Idempotency-Key' }));
    }
    const scope = idempotencyScopeKey(idempotencyScopeOf(request.corridor.context));
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    // The services derive a created resource's id from the key (idForRequest) and keep the
    // fingerprint with it: a retry after a lost answer then finds what the first attempt made, and
    // another request under the key is refused, even after this record is gone.
    request.corridor.context = { ...request.corridor.context, idempotencyKey: key, requestFingerprint: fingerprint };
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const claimed = this.store.claim(scope, key, fingerprint).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'CONFLICT') this.metrics.idempotency.inc({ outcome: 'conflict' });
      throw error;
    });
    return from(claimed).pipe(
      switchMap((claim) => {
        this.metrics.idempotency.inc({ outcome: claim.kind });
        if (claim.kind === 'replay') return replay(reply, claim.outcome);
        return next.handle().pipe(
          // The record is written before the reply leaves, so a retry that follows at once replays it.
          // When the record cannot be written the reply still goes out (the command is done), and the log
          // says that a retry under this key will not be recognised as one until the claim expires.
          switchMap((body) => from(this.recordSuccess(reply, scope, key, fingerprint, body)).pipe(map(() => body))),
          catchError((error: unknown) =>
            from(this.recordFailure(error, request, scope, key, fingerprint)).pipe(switchMap(() => throwError(() => error))),
          ),
        );
      }),
    );
  }

  private async recordSuccess(reply: FastifyReply, scope: string, key: string, fingerprint: string, body: unknown): Promise<void> {
    const provisional = isProvisional(reply);
    if (provisional) this.metrics.idempotency.inc({ outcome: 'released' });
    const recorded = provisional
      ? this.store.release(scope, key)
      : this.store.complete(scope, key, fingerprint, { status: reply.statusCode, body });
    await recorded.catch((error: unknown) => this.unrecorded(key, error));
  }

  private async recordFailure(error: unknown, request: FastifyRequest, scope: string, key: string, fingerprint: string): Promise<void> {
    const { body } = toHttpError(error, { method: request.method, url: request.url }, this.routes);
    const outcome: StoredOutcome = { status: body.status, body };
    // The client gets the command's own error either way; a record that could not be written is logged.
    const replayable = isReplayable(body);
    if (!replayable) this.metrics.idempotency.inc({ outcome: 'released' });
    await (replayable ? this.store.complete(scope, key, fingerprint, outcome) : this.store.release(scope, key)).catch(
      (recordError: unknown) => this.unrecorded(key, recordError),
    );
  }

  private unrecorded(key: string, error: unknown): void {
    this.metrics.idempotency.inc({ outcome: 'unrecorded' });
    logger.warn(
      { err: error, idempotencyKey: key },
      'Could not record the outcome under this Idempotency-Key; a retry waits for the claim to expire instead of replaying it.',
    );
  }
}

const replay = (reply: FastifyReply, outcome: StoredOutcome): Observable<unknown> => {
  void reply.header('idempotency-replayed', 'true');
  if (isErrorOutcome(outcome)) return throwError(() => DomainError.fromBody(outcome.body));
  // The status the first answer went out with (a route may answer 200 or 201 by outcome).
  void reply.status(outcome.status);
  return of(outcome.body);
};

const logger = createLogger('gateway:idempotency');
