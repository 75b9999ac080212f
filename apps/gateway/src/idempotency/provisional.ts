import type { FastifyReply } from 'fastify';

// A route whose answer is one step of a longer exchange, not the request's outcome, says so here,
// and the Idempotency-Key is then not bound to it: the signed retry's first leg (a 202 with
// payloadToSign) asks the client to send the same request again, signed, and that second leg must
// run the operation, not be answered with the challenge. The route marks its reply; the
// interceptor reads the mark (never the body or the status, which another route may share).

const provisional = new WeakSet<object>();

/** This reply is not the request's final answer: the Idempotency-Key stays free for the request that completes it. */
export const markProvisional = (reply: FastifyReply): void => {
  provisional.add(reply.raw);
};

export const isProvisional = (reply: FastifyReply): boolean => provisional.has(reply.raw);
