import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  type AgentExecutionMode,
  type AgentPermission,
  agentActionStatuses,
  agentExecutionModes,
  agentPermissions,
  TRANSFER_AMOUNT_MAX,
} from '@corridor/contracts';
import { DateRangeQuery, PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';
import { ListCustomerExternalAccountsQuery } from '../external-accounts/external-account.dto';
import { ListCustomerInternalAccountsQuery } from '../internal-accounts/internal-account.dto';
import { ListTransactionsQuery } from '../payments/payments.dto';

// Bodies and queries of the agent routes with the reference's shapes (AgentCreateRequest,
// AgentPolicy, AgentUpdateRequest, AgentPolicyUpdateRequest, AgentActionRejectRequest, the list
// filters). What a policy means is the agents service's to decide (policy.ts); here only shapes.

const AMOUNT_MAX = TRANSFER_AMOUNT_MAX;
const amountMessage = (name: string, nullable = false) =>
  `${name} must be a whole number of minor units from 0 to ${AMOUNT_MAX}${nullable ? ', or null' : ''}`;
const CURRENCY = /^[A-Z]{3,4}$/;
const ACCOUNT_IDS_MAX = 100;
/** Null is a value here ("no limit"), so only undefined skips validation. */
const Nullable = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined && value !== null);

class SpendingLimitsUpdate {
  @ApiPropertyOptional({ example: 'USD' })
  @Optional()
  @IsString()
  @Matches(CURRENCY, { message: 'spendingLimits.currency must be an ISO 4217 code such as USD' })
  currency?: string;
  @ApiPropertyOptional()
  @Optional()
  @IsInt({ message: amountMessage('perTransactionLimit') })
  @Min(0, { message: amountMessage('perTransactionLimit') })
  @Max(AMOUNT_MAX, { message: amountMessage('perTransactionLimit') })
  perTransactionLimit?: number;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('dailyLimit', true) })
  @Min(0, { message: amountMessage('dailyLimit', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('dailyLimit', true) })
  dailyLimit?: number | null;
  @ApiPropertyOptional()
  @Optional()
  @IsInt({ message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  @Min(0, { message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  @Max(1_000_000, { message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  dailyTransactionLimit?: number;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('monthlyLimit', true) })
  @Min(0, { message: amountMessage('monthlyLimit', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('monthlyLimit', true) })
  monthlyLimit?: number | null;
}

// The create request's limits: currency and perTransactionLimit required. Written out rather than
// extended from the update's, whose @Optional() would otherwise carry over to the required members.
class SpendingLimits {
  @ApiProperty({ example: 'USD' })
  @IsString({ message: 'spendingLimits.currency must be an ISO 4217 code such as USD' })
  @Matches(CURRENCY, { message: 'spendingLimits.currency must be an ISO 4217 code such as USD' })
  currency: string;
  @ApiProperty()
  @IsInt({ message: amountMessage('perTransactionLimit') })
  @Min(0, { message: amountMessage('perTransactionLimit') })
  @Max(AMOUNT_MAX, { message: amountMessage('perTransactionLimit') })
  perTransactionLimit: number;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('dailyLimit', true) })
  @Min(0, { message: amountMessage('dailyLimit', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('dailyLimit', true) })
  dailyLimit?: number | null;
  @ApiPropertyOptional()
  @Optional()
  @IsInt({ message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  @Min(0, { message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  @Max(1_000_000, { message: 'dailyTransactionLimit must be a whole number from 0 to 1000000' })
  dailyTransactionLimit?: number;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('monthlyLimit', true) })
  @Min(0, { message: amountMessage('monthlyLimit', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('monthlyLimit', true) })
  monthlyLimit?: number | null;
}

class AccountRule {
  @ApiProperty()
  @IsString({ message: 'accountRules[].accountId must be an internal account id' })
  @MinLength(1)
  @MaxLength(255)
  accountId: string;
  @ApiPropertyOptional({ enum: agentExecutionModes })
  @Optional()
  @IsIn(agentExecutionModes, { message: `executionMode must be one of ${agentExecutionModes.join(', ')}` })
  executionMode?: AgentExecutionMode;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('perTransactionLimit', true) })
  @Min(0, { message: amountMessage('perTransactionLimit', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('perTransactionLimit', true) })
  perTransactionLimit?: number | null;
}

class AccountRestrictions {
  @ApiPropertyOptional({ type: [String], nullable: true })
  @Nullable()
  @IsArray({ message: 'allowedAccountIds must be a list of internal account ids, or null' })
  @ArrayMaxSize(ACCOUNT_IDS_MAX)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  allowedAccountIds?: string[] | null;

  @ApiPropertyOptional({ type: [AccountRule] })
  @Optional()
  @IsArray({ message: 'accountRules must be a list' })
  @ArrayMaxSize(ACCOUNT_IDS_MAX)
  @ValidateNested({ each: true })
  @Type(() => AccountRule)
  accountRules?: AccountRule[];
}

class ApprovalThresholds {
  @ApiPropertyOptional({ example: 'USD' })
  @Optional()
  @IsString()
  @Matches(CURRENCY, { message: 'approvalThresholds.currency must be an ISO 4217 code such as USD' })
  currency?: string;
  @ApiPropertyOptional({ nullable: true })
  @Nullable()
  @IsInt({ message: amountMessage('approvalThresholds.amount', true) })
  @Min(0, { message: amountMessage('approvalThresholds.amount', true) })
  @Max(AMOUNT_MAX, { message: amountMessage('approvalThresholds.amount', true) })
  amount?: number | null;
}

const permissionsMessage = `permissions must be a list of ${agentPermissions.join(', ')}`;

export class AgentPolicyUpdateRequest {
  @ApiPropertyOptional({ enum: agentPermissions, isArray: true })
  @Optional()
  @IsArray({ message: permissionsMessage })
  @ArrayMaxSize(agentPermissions.length * 2, { message: permissionsMessage })
  @IsIn(agentPermissions, { each: true, message: permissionsMessage })
  permissions?: AgentPermission[];

  @ApiPropertyOptional({ enum: agentExecutionModes })
  @Optional()
  @IsIn(agentExecutionModes, { message: `defaultExecutionMode must be one of ${agentExecutionModes.join(', ')}` })
  defaultExecutionMode?: AgentExecutionMode;

  @ApiPropertyOptional({ type: SpendingLimitsUpdate })
  @Optional()
  @IsObject({ message: 'spendingLimits must be an object' })
  @ValidateNested()
  @Type(() => SpendingLimitsUpdate)
  spendingLimits?: SpendingLimitsUpdate;
  @ApiPropertyOptional({ type: AccountRestrictions })
  @Optional()
  @IsObject({ message: 'accountRestrictions must be an object' })
  @ValidateNested()
  @Type(() => AccountRestrictions)
  accountRestrictions?: AccountRestrictions;
  @ApiPropertyOptional({ type: ApprovalThresholds })
  @Optional()
  @IsObject({ message: 'approvalThresholds must be an object' })
  @ValidateNested()
  @Type(() => ApprovalThresholds)
  approvalThresholds?: ApprovalThresholds;
}

/** AgentPolicy in a create request: permissions, defaultExecutionMode and spendingLimits required. */
export class AgentPolicyRequest {
  @ApiProperty({ enum: agentPermissions, isArray: true })
  @IsArray({ message: permissionsMessage })
  @ArrayMaxSize(agentPermissions.length * 2, { message: permissionsMessage })
  @IsIn(agentPermissions, { each: true, message: permissionsMessage })
  permissions: AgentPermission[];

  @ApiProperty({ enum: agentExecutionModes })
  @IsIn(agentExecutionModes, { message: `defaultExecutionMode must be one of ${agentExecutionModes.join(', ')}` })
  defaultExecutionMode: AgentExecutionMode;
  @ApiProperty({ type: SpendingLimits })
  @IsObject({ message: 'spendingLimits must be an object' })
  @ValidateNested()
  @Type(() => SpendingLimits)
  spendingLimits: SpendingLimits;
  @ApiPropertyOptional({ type: AccountRestrictions })
  @Optional()
  @IsObject({ message: 'accountRestrictions must be an object' })
  @ValidateNested()
  @Type(() => AccountRestrictions)
  accountRestrictions?: AccountRestrictions;
  @ApiPropertyOptional({ type: ApprovalThresholds })
  @Optional()
  @IsObject({ message: 'approvalThresholds must be an object' })
  @ValidateNested()
  @Type(() => ApprovalThresholds)
  approvalThresholds?: ApprovalThresholds;
}

export class AgentCreateRequest {
  @ApiProperty({ example: 'Payroll Automation Agent' })
  @IsString({ message: 'name must be a string of 1 to 255 characters' })
  @MinLength(1, { message: 'name must be a string of 1 to 255 characters' })
  @MaxLength(255, { message: 'name must be a string of 1 to 255 characters' })
  name: string;
  @ApiProperty({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' })
  @IsString({ message: 'customerId must be a customer id' })
  @MinLength(1)
  @MaxLength(255)
  customerId: string;
  @ApiProperty({ type: AgentPolicyRequest })
  @IsObject({ message: 'policy must be an object' })
  @ValidateNested()
  @Type(() => AgentPolicyRequest)
  policy: AgentPolicyRequest;
}

export class AgentUpdateRequest {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'name must be a string of 1 to 255 characters' })
  @MinLength(1, { message: 'name must be a string of 1 to 255 characters' })
  @MaxLength(255, { message: 'name must be a string of 1 to 255 characters' })
  name?: string;
  @ApiPropertyOptional() @Optional() @IsBoolean({ message: 'isPaused must be true or false' }) isPaused?: boolean;
}

export class AgentActionRejectRequest {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'reason must be a string of at most 1000 characters' })
  @MaxLength(1000, { message: 'reason must be a string of at most 1000 characters' })
  reason?: string;
}

const booleanQuery = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

class AgentFilters {
  @ApiPropertyOptional() @Optional() @IsString() @MinLength(1) @MaxLength(255) customerId?: string;
  @ApiPropertyOptional() @Optional() @Transform(booleanQuery) @IsBoolean({ message: 'isPaused must be true or false' }) isPaused?: boolean;
  @ApiPropertyOptional()
  @Optional()
  @Transform(booleanQuery)
  @IsBoolean({ message: 'isConnected must be true or false' })
  isConnected?: boolean;
}

export class ListAgentsQuery extends IntersectionType(IntersectionType(AgentFilters, DateRangeQuery), PageQuery) {}

const dateMessage = (name: string) => `${name} must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z`;

class ApprovalFilters {
  @ApiPropertyOptional() @Optional() @IsString() @MinLength(1) @MaxLength(255) agentId?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MinLength(1) @MaxLength(255) customerId?: string;
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('startDate') })
  startDate?: string;
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('endDate') })
  endDate?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @Optional()
  @IsIn(['asc', 'desc'], { message: 'sortOrder must be asc or desc' })
  sortOrder?: 'asc' | 'desc';
}

export class ListApprovalsQuery extends IntersectionType(ApprovalFilters, PageQuery) {}

class OwnActionFilters {
  @ApiPropertyOptional({ enum: agentActionStatuses })
  @Optional()
  @IsIn(agentActionStatuses, { message: `status must be one of ${agentActionStatuses.join(', ')}` })
  status?: (typeof agentActionStatuses)[number];
}

export class ListOwnActionsQuery extends IntersectionType(OwnActionFilters, PageQuery) {}

/** The agent's customer is implied: no customer filter is accepted. */
export class AgentTransactionsQuery extends OmitType(ListTransactionsQuery, ['customerId', 'platformCustomerId'] as const) {}
export class AgentInternalAccountsQuery extends OmitType(ListCustomerInternalAccountsQuery, ['customerId'] as const) {}
export class AgentExternalAccountsQuery extends OmitType(ListCustomerExternalAccountsQuery, ['customerId'] as const) {}

class AccountReference {
  @ApiProperty() @IsString({ message: 'accountId must be an account id' }) @MinLength(1) @MaxLength(255) accountId: string;
}

class TransferDestination extends AccountReference {
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(64) paymentRail?: string;
}

const agentAmountMessage = `amount must be a whole number of minor units from 1 to ${AMOUNT_MAX}`;

/** TransferOutRequest / TransferInRequest; an agent must name the amount (its policy is applied to it). */
export class AgentTransferRequest {
  @ApiProperty({ type: AccountReference })
  @IsObject({ message: 'source must be an object with an accountId' })
  @ValidateNested()
  @Type(() => AccountReference)
  source: AccountReference;
  @ApiProperty({ type: TransferDestination })
  @IsObject({ message: 'destination must be an object with an accountId' })
  @ValidateNested()
  @Type(() => TransferDestination)
  destination: TransferDestination;
  @ApiProperty({ description: 'Minor units. Required for agents: the policy is applied to it.' })
  @IsInt({ message: agentAmountMessage })
  @Min(1, { message: agentAmountMessage })
  @Max(AMOUNT_MAX, { message: agentAmountMessage })
  amount: number;
}
