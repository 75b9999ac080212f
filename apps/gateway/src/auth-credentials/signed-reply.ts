import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  givesSignedRequestBack,
  type ReleaseSignedRequestData,
  type RequestContext,
  type SignedReply,
  subjects,
  type WalletAuthorization,
  type WalletSignatureHeaders,
} from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { markProvisional } from '../idempotency/provisional';
import type { ServiceCall } from '../service-call';

// The signed retry's headers go to the accounts service exactly as received; its reply carries
// the HTTP status (202 challenge, or the operation's own 200/201/204).

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
};

export const walletHeaders = (request: FastifyRequest): WalletSignatureHeaders => {
  const walletSignature = header(request, 'grid-wallet-signature');
  const requestId = header(request, 'request-id');
  return { ...(walletSignature !== undefined ? { walletSignature } : {}), ...(requestId !== undefined ? { requestId } : {}) };
};

/** The signed retry's answer: a 202 challenge is leg 1, never the final answer its Idempotency-Key replays. */
export const answer = <T>(reply: FastifyReply, result: SignedReply<T>): unknown => {
  if (result.status === 202) markProvisional(reply);
  void reply.status(result.status);
  return result.body;
};

const logger = createLogger('gateway:signed-retry');

/**
 * Applies a change a wallet authorized (accounts answered proceed). When the service that applies
 * it refuses (4xx: nothing changed), the signed request accounts used is given back, so the caller
 * may send the same signed retry again instead of starting over; a failure to give it back is
 * logged and the refusal still answered.
 */
export const applyAuthorized = async <T>(
  call: ServiceCall,
  context: RequestContext,
  authorization: WalletAuthorization | undefined,
  apply: () => Promise<T>,
): Promise<T> => {
  try {
    return await apply();
  } catch (error) {
    const requestId = authorization?.consumedRequestId;
    if (requestId && givesSignedRequestBack(error)) {
      await call
        .request(subjects.accounts.embeddedWallet.releaseSignedRequest, { requestId } satisfies ReleaseSignedRequestData, context)
        .catch((releaseError: unknown) =>
          logger.error(
            { err: releaseError, requestId },
            'Could not give back a signed request whose change was refused; the caller must start the signed retry again.',
          ),
        );
    }
    throw error;
  }
};
