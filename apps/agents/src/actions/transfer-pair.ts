import { DomainError, type ExternalAccountWire, type InternalAccountWire } from '@corridor/contracts';

// What an agent may ask to transfer, judged before any usage is reserved or action recorded (so a
// refusal changes nothing): both accounts must be its customer's (an unknown, deleted or another
// customer's account is the same 404 naming the field, telling the agent nothing about other
// tenants), in one currency. Payments judges the rest when the action executes (the accounts'
// status, a transfer-in's pullable source: transfers/create-transfer.ts); those checks are not
// copied here. The currency is checked here because the spending policy reserves usage in it.

export type AgentTransferFacts = {
  direction: 'OUT' | 'IN';
  /** The customer the agent acts for. */
  customerId: string;
  /** As the accounts service answered, or undefined when it does not know the id (or it is malformed). */
  internal: Pick<InternalAccountWire, 'id' | 'customerId' | 'type' | 'balance'> | undefined;
  external: Pick<ExternalAccountWire, 'id' | 'customerId' | 'currency'> | undefined;
  /** The ids as the request sent them, for the refusal. */
  requested: { source: unknown; destination: unknown };
};

export type AgentTransferPair = {
  internal: NonNullable<AgentTransferFacts['internal']>;
  external: NonNullable<AgentTransferFacts['external']>;
  /** The one currency both accounts hold: the currency usage is reserved in. */
  currency: string;
};

export const accountNotFound = (field: string, accountId: unknown) =>
  new DomainError(
    'REFERENCE_NOT_FOUND',
    'not_found',
    `${field} ${String(accountId).slice(0, 80)} is not an account of this agent's customer.`,
    { field },
  );

/** The source is judged before the destination, ownership before currency, as callers have always heard them. */
export const judgeAgentTransfer = (facts: AgentTransferFacts): AgentTransferPair => {
  const { direction, customerId, internal, external, requested } = facts;
  const [source, destination] = direction === 'OUT' ? [internal, external] : [external, internal];
  if (!source || source.customerId !== customerId) throw accountNotFound('source.accountId', requested.source);
  if (!destination || destination.customerId !== customerId) throw accountNotFound('destination.accountId', requested.destination);
  const owned = { internal: internal as AgentTransferPair['internal'], external: external as AgentTransferPair['external'] };
  const currency = owned.internal.balance.currency.code;
  if (owned.external.currency !== currency) {
    const [externalField, internalField] =
      direction === 'OUT' ? ['destination.accountId', 'source.accountId'] : ['source.accountId', 'destination.accountId'];
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `${externalField} holds ${owned.external.currency} and ${internalField} ${currency}; a transfer moves one currency.`,
      { field: externalField },
    );
  }
  return { ...owned, currency };
};
