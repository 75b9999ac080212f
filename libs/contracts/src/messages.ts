// Commands and events are plain readonly data, never classes, so they serialize across NATS and
// into the event store unchanged. The shapes follow emmett's Command/Event/Decider.

export type Command<
  Type extends string = string,
  Data extends Record<string, unknown> = Record<string, unknown>,
  Metadata extends Record<string, unknown> = Record<string, unknown>,
> = Readonly<{ type: Type; data: Readonly<Data>; metadata: Readonly<Metadata> }>;

export type Event<Type extends string = string, Data extends Record<string, unknown> = Record<string, unknown>> = Readonly<{
  type: Type;
  data: Readonly<Data>;
}>;

export type Decider<State, C extends Command, E extends Event> = {
  decide: (command: C, state: State) => E[];
  evolve: (state: State, event: E) => State;
  initialState: () => State;
};

/** Who caused a change: a platform API token, an agent, or the system itself. */
export type Actor = { kind: 'token'; tokenId: string } | { kind: 'agent'; agentId: string } | { kind: 'system'; name: string };

/** Carried with every request over NATS; its ids are stored in the metadata of every event it causes. */
export type RequestContext = {
  platformId: string;
  actor: Actor;
  requestId: string;
  correlationId: string;
  /**
   * The id of the request, command or event that directly caused this one (stored as the events'
   * causationId). Unset, the messaging layer fills it from the context of the work that sends it.
   */
  causationId?: string;
  /**
   * The POST's Idempotency-Key, when it has one. A create derives its new resource's id from it
   * (`idForRequest`, in the actor's scope), so a retry after an answer that never arrived (a 503, a
   * lost connection) finds what the first attempt made instead of making a second one. Not stored in events.
   */
  idempotencyKey?: string;
  /**
   * With idempotencyKey: the gateway's fingerprint of the request (method, path, body; idempotency.ts).
   * A create keeps it with the resource it makes, so a later request under the same key is told
   * apart: the same one is answered with that resource, another is a 409 (`requireSameRequest`).
   */
  requestFingerprint?: string;
};
