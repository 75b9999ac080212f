import { randomBytes } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ClaimInvitationData,
  claimUniqueValue,
  CLOCK,
  type Clock,
  type CreateInvitationData,
  type CustomerWire,
  DomainError,
  idempotencyScopeOf,
  idForRequest,
  type InvitationCodeData,
  type InvitationWire,
  invalidInput,
  invalidUmaAddress,
  isSupportedCurrency,
  isUmaAddress,
  MINOR_UNITS_MAX,
  type Page,
  parseMinorUnits,
  type RequestContext,
  type ServiceRequest,
  releaseUniqueValue,
  subjects,
  uniqueValueDecider,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { UMA_OPTIONS, type UmaOptions } from '../uma/uma-options';
import {
  type CancelInvitation,
  cancelInvitation,
  type ClaimInvitation,
  claimInvitation,
  type CreateInvitation,
  createInvitation,
  type Invitation,
  type InvitationEvent,
  invitationDecider,
  invitationNotFound,
  invitationStreamId,
  renderInvitation,
} from './invitation';
import { InvitationEntity } from './invitation-view.projection';

const CALL_TIMEOUT_MS = 5_000;
/** Crockford's base32 in lower case: no i, l, o, u, so a code read aloud or retyped survives. */
const CODE_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const CODE_LENGTH = 10;
export const INVITATION_CODE = /^[0-9a-z]{4,32}$/;

export const newInvitationCode = (): string => [...randomBytes(CODE_LENGTH)].map((byte) => CODE_ALPHABET[byte % 32]).join('');

/** The stream where an Idempotency-Key's invitation code is claimed, in the key's actor scope. */
const codeClaimKey = (context: RequestContext): string =>
  idForRequest('InvitationKey', idempotencyScopeOf(context), 'create-invitation', context.idempotencyKey);

/**
 * POST /invitations, GET /invitations/{code}, POST …/claim, POST …/cancel. The code is the
 * capability: any platform holding it can read and claim the invitation (its invitee is usually a
 * customer elsewhere); only the creating platform can cancel it (403 for others, as the reference
 * has it), and INVITATION.CLAIMED goes to the creating platform.
 */
@Controller()
export class InvitationsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(UMA_OPTIONS) private readonly options: UmaOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.payments.invitation.create)
  async create(@Payload() request: ServiceRequest<CreateInvitationData>): Promise<InvitationWire> {
    const { context, data } = request;
    if (!isUmaAddress(data.inviterUma)) throw invalidUmaAddress('inviterUma', data.inviterUma);
    const inviter = await this.customerAt(context, data.inviterUma);
    const currency = inviter.currencies?.find(isSupportedCurrency) ?? 'USD';
    const now = this.clock.now();
    const amountToSend =
      data.amountToSend === undefined
        ? undefined
        : parseMinorUnits(data.amountToSend, { field: 'amountToSend', min: 0n, max: MINOR_UNITS_MAX });
    const commandFor = (code: string): CreateInvitation => ({
      type: 'CreateInvitation',
      data: {
        code,
        platformId: context.platformId,
        url: `${this.options.invitationUrlBase}${code}`,
        inviterUma: inviter.umaAddress,
        inviterCustomerId: inviter.id,
        ...(data.firstName !== undefined ? { firstName: data.firstName } : {}),
        ...(amountToSend !== undefined ? { amountToSend: { value: amountToSend, currency } } : {}),
        ...(data.expiresAt !== undefined ? { expiresAt: data.expiresAt } : {}),
        ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
      },
      metadata: { now, ttlSeconds: this.options.invitationTtlSeconds },
    });
    // Decide once before a code is claimed, so a refused request claims nothing.
    createInvitation(commandFor(newInvitationCode()), invitationDecider.initialState());
    for (let attempt = 0; ; attempt += 1) {
      const { code, drawn } = await this.codeFor(context);
      try {
        const { state } = await this.eventSourcing.handle(
          invitationStreamId(code),
          invitationDecider,
          (current) => createInvitation(commandFor(code), current),
          context,
          { assumeNew: true },
        );
        if (state.kind !== 'Exists') throw new Error(`Invitation ${code} was not created.`);
        return renderInvitation(state.invitation, now);
      } catch (error) {
        // A code drawn here that names an invitation already (50 random bits drawn twice): draw another.
        if (!drawn || !(error instanceof DomainError && error.code === 'CONFLICT') || attempt >= 3) throw error;
        if (context.idempotencyKey) await this.releaseCode(context, code);
      }
    }
  }

  /**
   * The code of a new invitation. It is the capability to read and claim it, so it is never derived
   * from the Idempotency-Key (a key is no secret): a random code is drawn, and under a key it is
   * claimed in the key's own stream, where a retry after a lost answer finds it (decision 0028).
   */
  private async codeFor(context: RequestContext): Promise<{ code: string; drawn: boolean }> {
    if (!context.idempotencyKey) return { code: newInvitationCode(), drawn: true };
    const claimKey = codeClaimKey(context);
    const claimed = await this.claimedCode(claimKey);
    if (claimed) return { code: claimed, drawn: false };
    const code = newInvitationCode();
    const claim = {
      type: 'ClaimUniqueValue' as const,
      data: { key: claimKey, ownerId: code, conflictCode: 'CONFLICT', conflictMessage: 'claimed by a twin' },
      metadata: {},
    };
    try {
      await this.eventSourcing.handle(claimKey, uniqueValueDecider, (value) => claimUniqueValue(claim, value), context, {
        assumeNew: true,
      });
      return { code, drawn: true };
    } catch (error) {
      // A twin under the same key claimed first: its code is this request's too.
      const twin = error instanceof DomainError && error.code === 'CONFLICT' ? await this.claimedCode(claimKey) : undefined;
      if (!twin) throw error;
      return { code: twin, drawn: false };
    }
  }

  private async claimedCode(claimKey: string): Promise<string | undefined> {
    const { state } = await this.eventSourcing.load(claimKey, uniqueValueDecider);
    return state.ownerId ?? undefined;
  }

  private async releaseCode(context: RequestContext, code: string): Promise<void> {
    const claimKey = codeClaimKey(context);
    await this.eventSourcing.handle(claimKey, uniqueValueDecider, (value) => releaseUniqueValue(claimKey, code, value), context);
  }

  @MessagePattern(subjects.payments.invitation.get)
  async get(@Payload() request: ServiceRequest<InvitationCodeData>): Promise<InvitationWire> {
    const code = String(request.data.code);
    if (!INVITATION_CODE.test(code)) throw invitationNotFound(code);
    const row = await this.eventSourcing.em.findOne(InvitationEntity, { id: code });
    if (!row) throw invitationNotFound(code);
    return renderInvitation(row.invitation, this.clock.now());
  }

  @MessagePattern(subjects.payments.invitation.claim)
  async claim(@Payload() request: ServiceRequest<ClaimInvitationData>): Promise<InvitationWire> {
    const { context, data } = request;
    if (!isUmaAddress(data.inviteeUma)) throw invalidUmaAddress('inviteeUma', data.inviteeUma);
    const now = this.clock.now();
    const command: ClaimInvitation = {
      type: 'ClaimInvitation',
      data: { code: String(data.code), inviteeUma: data.inviteeUma, platformId: context.platformId },
      metadata: { now },
    };
    return this.run(context, command.data.code, (state) => claimInvitation(command, state), now);
  }

  @MessagePattern(subjects.payments.invitation.cancel)
  async cancel(@Payload() request: ServiceRequest<InvitationCodeData>): Promise<InvitationWire> {
    const { context, data } = request;
    const now = this.clock.now();
    const command: CancelInvitation = {
      type: 'CancelInvitation',
      data: { code: String(data.code), platformId: context.platformId },
      metadata: { now },
    };
    return this.run(context, command.data.code, (state) => cancelInvitation(command, state), now);
  }

  /**
   * Runs a command on an existing invitation. Its events are recorded under the creating
   * platform's id (the stream is that platform's), which is also where INVITATION.CLAIMED goes;
   * the actor stays the caller's.
   */
  private async run(
    context: RequestContext,
    code: string,
    decide: (state: Invitation) => InvitationEvent[],
    now: Date,
  ): Promise<InvitationWire> {
    if (!INVITATION_CODE.test(code)) throw invitationNotFound(code);
    const row = await this.eventSourcing.em.findOne(InvitationEntity, { id: code }, { fields: ['platformId'] });
    if (!row) throw invitationNotFound(code);
    const { state } = await this.eventSourcing.handle(invitationStreamId(code), invitationDecider, decide, {
      ...context,
      platformId: row.platformId,
    });
    if (state.kind !== 'Exists') throw invitationNotFound(code);
    return renderInvitation(state.invitation, now);
  }

  /** The customer of this platform whose UMA address this is; a 400 naming inviterUma otherwise. */
  private async customerAt(context: RequestContext, umaAddress: string): Promise<CustomerWire> {
    const page = await this.client.request<Page<CustomerWire>>(
      subjects.customers.customer.list,
      { umaAddress, limit: 1 },
      { context, timeoutMs: CALL_TIMEOUT_MS },
    );
    const customer = page.data.find((candidate) => candidate.umaAddress.toLowerCase() === umaAddress.toLowerCase() && !candidate.isDeleted);
    if (!customer)
      throw invalidInput(
        `inviterUma ${umaAddress} is not the UMA address of a customer of this platform; an invitation is created from one of your ` +
          `customers.`,
        { field: 'inviterUma' },
      );
    return customer;
  }
}
