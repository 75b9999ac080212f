// Pins down the verification's transitions: RESOLVE_ERRORS or IN_PROGRESS on submit, no second
// submission while one is with the provider, and the outcome moving the customer's status with it.
import { deciderSpec } from '@corridor/testing';
import { customerDecider, type CustomerEvent } from '../customers/customer';
import { customerId, individualCreated, otherPlatformId, platformId } from '../customers/customer.fixtures';
import { businessCreated } from '../beneficial-owners/beneficial-owner.fixtures';
import {
  type RecordVerificationOutcome,
  recordVerificationOutcome,
  type SubmitVerification,
  submitVerification,
} from './submit-verification';
import type { DecidedStatus } from './verification';

const verificationId = 'Verification:0196f1a0-0000-7000-8000-0000000000e1';
const otherVerificationId = 'Verification:0196f1a0-0000-7000-8000-0000000000e2';
const now = new Date('2026-03-02T00:00:00.000Z');
const at = now.toISOString();

const submit = (options: { id?: string; platformId?: string } = {}): SubmitVerification => ({
  type: 'SubmitVerification',
  data: { verificationId: options.id ?? verificationId, customerId, platformId: options.platformId ?? platformId },
  metadata: { now },
});
const outcome = (status: DecidedStatus, id = verificationId): RecordVerificationOutcome => ({
  type: 'RecordVerificationOutcome',
  data: { verificationId: id, customerId, platformId, outcome: status },
  metadata: { now },
});

const completeIndividual: CustomerEvent[] = [
  individualCreated(),
  {
    type: 'CustomerUpdated',
    data: {
      customerId,
      platformId,
      changes: { birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', postalCode: '62701', country: 'US' } },
      updatedAt: at,
    },
  },
];
const submitted = (status: 'IN_PROGRESS' | 'RESOLVE_ERRORS', customerType: 'INDIVIDUAL' | 'BUSINESS' = 'INDIVIDUAL'): CustomerEvent => ({
  type: 'VerificationSubmitted',
  data: { customerId, platformId, verificationId, customerType, verificationStatus: status, errors: [], submittedAt: at },
});

describe('SubmitVerification', () => {
  it('goes IN_PROGRESS with no errors when nothing is missing', () =>
    given(completeIndividual)
      .when(submit())
      .then([submitted('IN_PROGRESS')]));

  it('stays RESOLVE_ERRORS and lists what is missing', () =>
    given([businessCreated()])
      .when(submit())
      .then([
        {
          type: 'VerificationSubmitted',
          data: expect.objectContaining({
            verificationStatus: 'RESOLVE_ERRORS',
            customerType: 'BUSINESS',
            errors: expect.arrayContaining([expect.objectContaining({ type: 'MISSING_BENEFICIAL_OWNER' })]),
          }),
        },
      ]));

  it('records nothing while an earlier verification is still with the provider', () =>
    given([...completeIndividual, submitted('IN_PROGRESS')])
      .when(submit({ id: otherVerificationId }))
      .thenNothingHappened());

  it('opens a new verification after one that asked to resolve errors', () =>
    given([...completeIndividual, submitted('RESOLVE_ERRORS')])
      .when(submit({ id: otherVerificationId }))
      .then([
        {
          type: 'VerificationSubmitted',
          data: expect.objectContaining({ verificationId: otherVerificationId, verificationStatus: 'IN_PROGRESS' }),
        },
      ]));

  it('answers 404 for another platform’s customer', () =>
    given(completeIndividual)
      .when(submit({ platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'USER_NOT_FOUND', status: 404 })));
});

describe('RecordVerificationOutcome', () => {
  const business = [businessCreated(), submitted('IN_PROGRESS', 'BUSINESS')];

  it('approves the verification and the customer’s kybStatus with it', () =>
    givenOutcome(business)
      .when(outcome('APPROVED'))
      .then([
        {
          type: 'VerificationDecided',
          data: {
            customerId,
            platformId,
            verificationId,
            customerType: 'BUSINESS',
            verificationStatus: 'APPROVED',
            errors: [],
            decidedAt: at,
          },
        },
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'BUSINESS', from: 'UNVERIFIED', to: 'APPROVED', changedAt: at, verificationId },
        },
      ]));

  it('maps manual review to a PENDING customer, and a rejection to REJECTED with the reason', () => {
    givenOutcome(business)
      .when(outcome('PENDING_MANUAL_REVIEW'))
      .then([
        expect.objectContaining({
          type: 'VerificationDecided',
          data: expect.objectContaining({ verificationStatus: 'PENDING_MANUAL_REVIEW' }),
        }),
        expect.objectContaining({ type: 'CustomerVerificationStatusChanged', data: expect.objectContaining({ to: 'PENDING' }) }),
      ]);
    givenOutcome(business)
      .when(outcome('REJECTED'))
      .then([
        expect.objectContaining({
          data: expect.objectContaining({
            verificationStatus: 'REJECTED',
            errors: [expect.objectContaining({ type: 'APPLICANT_REJECTED', resourceId: customerId })],
          }),
        }),
        expect.objectContaining({
          type: 'CustomerVerificationStatusChanged',
          data: expect.objectContaining({ from: 'UNVERIFIED', to: 'REJECTED' }),
        }),
      ]);
  });

  it('leaves an already approved customer’s status alone (no status event)', () =>
    givenOutcome([...completeIndividual, submitted('IN_PROGRESS')])
      .when(outcome('APPROVED'))
      .then([expect.objectContaining({ type: 'VerificationDecided' })]));

  it('does nothing when the same outcome is recorded again', () =>
    givenOutcome([
      ...business,
      {
        type: 'VerificationDecided',
        data: {
          customerId,
          platformId,
          verificationId,
          customerType: 'BUSINESS',
          verificationStatus: 'APPROVED',
          errors: [],
          decidedAt: at,
        },
      },
    ])
      .when(outcome('APPROVED'))
      .thenNothingHappened());

  it('refuses an outcome for a verification that is not waiting for one', () =>
    givenOutcome([businessCreated(), submitted('RESOLVE_ERRORS', 'BUSINESS')])
      .when(outcome('APPROVED'))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT' })));
});

function given(events: CustomerEvent[]) {
  return deciderSpec({ decide: submitVerification, ...customerDecider }).given(events);
}
function givenOutcome(events: CustomerEvent[]) {
  return deciderSpec({ decide: recordVerificationOutcome, ...customerDecider }).given(events);
}
