import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedReply, WalletSignatureHeaders } from '@corridor/contracts';

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

export const answer = <T>(reply: FastifyReply, result: SignedReply<T>): unknown => {
  void reply.status(result.status);
  return result.body;
};
