import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { invalidInput, type ServiceRequest, subjects, type UmaDepositTargetsData, type UmaDepositTargetsWire } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';

// Spec rules 3–4 need two facts about a customer at once: the default UMA deposit external account
// (if any) and the internal accounts that could receive instead. One prepared statement over both
// read models answers them for the payments service (incoming UMA payments), instead of two paged
// lists with counts. Scoped to the asking platform: another platform's customer has nothing.

const UMA_DEPOSIT_TARGETS = `SELECT 'EXTERNAL' AS source, id, currency, status FROM accounts.external_accounts
   WHERE platform_id = $1 AND customer_id = $2 AND default_uma_deposit_account AND NOT is_deleted
 UNION ALL
 SELECT 'INTERNAL' AS source, id, currency, status FROM accounts.internal_accounts
   WHERE platform_id = $1 AND customer_id = $2 AND status <> 'CLOSED'`;

type Row = { source: 'EXTERNAL' | 'INTERNAL'; id: string; currency: string; status: string };

@Controller()
export class UmaDepositTargetsController {
  constructor(private readonly eventSourcing: EventSourcing) {}

  @MessagePattern(subjects.accounts.umaDeposit.targets)
  async targets(@Payload() request: ServiceRequest<UmaDepositTargetsData>): Promise<UmaDepositTargetsWire> {
    const { customerId } = request.data;
    if (typeof customerId !== 'string' || customerId.length === 0 || customerId.length > 200)
      throw invalidInput('customerId must name a customer.', { field: 'customerId' });
    const rows = await this.eventSourcing.read<Row>('uma-deposit-targets', UMA_DEPOSIT_TARGETS, [request.context.platformId, customerId]);
    const external = rows.find((row) => row.source === 'EXTERNAL');
    return {
      defaultExternalAccount: external ? { id: external.id, currency: external.currency, status: external.status } : null,
      internalAccounts: rows.filter((row) => row.source === 'INTERNAL').map(({ id, currency, status }) => ({ id, currency, status })),
    };
  }
}
