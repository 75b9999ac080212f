import { type CallHandler, type ExecutionContext, HttpStatus, Injectable, type NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { DomainError, type ErrorBody, invalidInput } from '@corridor/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, map, type Observable, of, switchMap, throwError } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/request-context';
import { toHttpError } from '../http/errors';
import { RouteTable } from '../http/route-table';
import { requestFingerprint } from './fingerprint';
import { IdempotencyStore, isErrorOutcome, type StoredOutcome } from './idempotency.store';
import { createLogger } from '@corridor/messaging';

const ACCEPTABLE_KEY = /^[\x21-\x7e]{1,255}$/;

// An outcome worth replaying is one the services decided. A 5xx or an outage says nothing
// about the request, a gateway validation failure means nothing ran, and a 401 (a missing or bad
// credential or wallet stamp, which headers carry and the key's fingerprint does not) or a 429
// refused the caller before anything was decided: in all of these the key is released so the
// client can retry, correct the body or sign the request, under the same key.
const isReplayable = (body: ErrorBody): boolean => body.status < 500 && body.status !== 401 && body.status !== 429 && body.code !== 'INVALID_INPUT';

/** Idempotency-Key on POST: the first outcome for a key is replayed to every repeat for 24 h. */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly routes: RouteTable,
  ) {}

  intercept(host: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = host.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.corridor) return next.handle();
    if (typeof key !== 'string' || !ACCEPTABLE_KEY.test(key)) {
      return throwError(() => invalidInput('Idempotency-Key must be 1 to 255 printable ASCII characters.', { field: 'Idempotency-Key' }));
    }
    const { platformId } = request.corridor.context;
    // The services derive a created resource's id from the key (idForRequest): a retry after a
    // lost answer then finds what the first attempt made.
    request.corridor.context = { ...request.corridor.context, idempotencyKey: key };
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const successStatus = (Reflect.getMetadata(HTTP_CODE_METADATA, host.getHandler()) as number | undefined) ?? HttpStatus.CREATED;
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    return from(this.store.claim(platformId, key, fingerprint)).pipe(
      switchMap((claim) => {
        if (claim.kind === 'replay') return replay(reply, claim.outcome);
        return next.handle().pipe(
          // The record is written before the reply leaves, so a retry that follows at once replays it.
          // When the record cannot be written the reply still goes out (the command is done), and the log
          // says that a retry under this key will not be recognised as one until the claim expires.
          switchMap((body) => from(this.record(reply, successStatus, platformId, key, fingerprint, body)).pipe(map(() => body))),
          catchError((error: unknown) => from(this.recordFailure(error, request, platformId, key, fingerprint)).pipe(switchMap(() => throwError(() => error)))),
        );
      }),
    );
  }

  /**
   * The first leg of an Embedded Wallet's signed retry (a 202 where the route answers otherwise)
   * decided nothing: the key is released, so the signed second leg runs under the same key.
   */
  private async record(reply: FastifyReply, success: number, platformId: string, key: string, print: string, body: unknown): Promise<void> {
    const challenge = reply.statusCode === HttpStatus.ACCEPTED && success !== HttpStatus.ACCEPTED;
    const outcome = { status: success, body };
    const recorded = challenge ? this.store.release(platformId, key) : this.store.complete(platformId, key, print, outcome);
    await recorded.catch((error: unknown) => unrecorded(key, error));
  }

  private async recordFailure(error: unknown, request: FastifyRequest, platformId: string, key: string, fingerprint: string): Promise<void> {
    const { body } = toHttpError(error, { method: request.method, url: request.url }, this.routes);
    const outcome: StoredOutcome = { status: body.status, body };
    // The client gets the command's own error either way; a record that could not be written is logged.
    await (isReplayable(body) ? this.store.complete(platformId, key, fingerprint, outcome) : this.store.release(platformId, key)).catch((recordError: unknown) => unrecorded(key, recordError));
  }
}

const replay = (reply: FastifyReply, outcome: StoredOutcome): Observable<unknown> => {
  void reply.header('idempotency-replayed', 'true');
  if (isErrorOutcome(outcome)) return throwError(() => DomainError.fromBody(outcome.body));
  return of(outcome.body);
};

const logger = createLogger('gateway:idempotency');
const unrecorded = (key: string, error: unknown): void =>
  logger.warn({ err: error, idempotencyKey: key }, 'Could not record the outcome under this Idempotency-Key; a retry waits for the claim to expire instead of replaying it.');
