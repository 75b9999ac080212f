import type { Command, Event } from '@corridor/contracts';

// "At most one default UMA deposit account per customer" spans the customer's account streams, so
// the default lives in one stream per customer (UmaDepositDefault:<customerId>). Appends to it are
// version-checked, so two concurrent "make me the default" requests are decided one after the
// other, and each change names both the account that loses the flag and the one that gains it.
// The read model's defaultUmaDepositAccount is projected from this stream alone.

export type UmaDepositDefaultAssigned = Event<
  'UmaDepositDefaultAssigned',
  { customerId: string; externalAccountId: string; assignedAt: string }
>;
export type UmaDepositDefaultCleared = Event<
  'UmaDepositDefaultCleared',
  { customerId: string; externalAccountId: string; replacedBy: string | null; clearedAt: string }
>;
export type UmaDepositDefaultEvent = UmaDepositDefaultAssigned | UmaDepositDefaultCleared;
export type UmaDepositDefault = { externalAccountId: string | null };

export const umaDepositDefaultStreamId = (customerId: string): string => `UmaDepositDefault:${customerId}`;

export const umaDepositDefaultDecider = {
  initialState: (): UmaDepositDefault => ({ externalAccountId: null }),
  evolve: (state: UmaDepositDefault, event: UmaDepositDefaultEvent): UmaDepositDefault =>
    event.type === 'UmaDepositDefaultAssigned'
      ? { externalAccountId: event.data.externalAccountId }
      : state.externalAccountId === event.data.externalAccountId
        ? { externalAccountId: null }
        : state,
};

export type AssignUmaDepositDefault = Command<'AssignUmaDepositDefault', { customerId: string; externalAccountId: string }, { now: Date }>;
export type ClearUmaDepositDefault = Command<'ClearUmaDepositDefault', { customerId: string; externalAccountId: string }, { now: Date }>;

/** A new default replaces the old one: the old one's flag is cleared in the same append. */
export const assignUmaDepositDefault = (command: AssignUmaDepositDefault, current: UmaDepositDefault): UmaDepositDefaultEvent[] => {
  const { customerId, externalAccountId } = command.data;
  const at = command.metadata.now.toISOString();
  if (current.externalAccountId === externalAccountId) return [];
  return [
    ...(current.externalAccountId !== null
      ? [
          {
            type: 'UmaDepositDefaultCleared' as const,
            data: { customerId, externalAccountId: current.externalAccountId, replacedBy: externalAccountId, clearedAt: at },
          },
        ]
      : []),
    { type: 'UmaDepositDefaultAssigned', data: { customerId, externalAccountId, assignedAt: at } },
  ];
};

/** Deleting the default leaves the customer without one; deleting any other account changes nothing here. */
export const clearUmaDepositDefault = (command: ClearUmaDepositDefault, current: UmaDepositDefault): UmaDepositDefaultEvent[] => {
  const { customerId, externalAccountId } = command.data;
  if (current.externalAccountId !== externalAccountId) return [];
  return [
    {
      type: 'UmaDepositDefaultCleared',
      data: { customerId, externalAccountId, replacedBy: null, clearedAt: command.metadata.now.toISOString() },
    },
  ];
};
