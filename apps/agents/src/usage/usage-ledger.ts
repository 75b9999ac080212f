import { DomainError } from '@corridor/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { EventSourcing, inTransaction } from '@corridor/event-store';
import type { PoolClient } from 'pg';
import { AGENT_OPTIONS, type AgentOptions } from '../agents/agent-options';
import type { SpendDecision, UsageCounters } from '../policy/evaluate-policy';
import { periodOf } from '../policy/usage';

/**
 * The agents' spending counters (decision 0016). A reservation locks the agent's row for today and
 * for this month (always in that order, so two requests never deadlock), evaluates the policy
 * against the locked counters, and adds the charge in the same transaction: fifty concurrent
 * requests queue on the lock and each sees the others' charges, so together they never pass a
 * limit. Each reservation is a row keyed by the action id, so a release (rejected, failed) gives
 * back exactly what was taken, once.
 */
@Injectable()
export class UsageLedger {
  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(AGENT_OPTIONS) options: AgentOptions,
  ) {
    this.schema = options.schema;
  }

  private readonly schema: string;

  async read(agentId: string, now: Date): Promise<UsageCounters> {
    const { day, month } = periodOf(now);
    const [daily] = await this.eventSourcing.read<{ transaction_count: number; spend: string }>(
      'agents-usage-daily',
      `SELECT transaction_count, spend FROM ${this.schema}.agent_usage_daily WHERE agent_id = $1 AND day = $2`,
      [agentId, day],
    );
    const [monthly] = await this.eventSourcing.read<{ spend: string }>(
      'agents-usage-monthly',
      `SELECT spend FROM ${this.schema}.agent_usage_monthly WHERE agent_id = $1 AND month = $2`,
      [agentId, month],
    );
    return { dailyCount: daily?.transaction_count ?? 0, dailySpend: BigInt(daily?.spend ?? 0), monthlySpend: BigInt(monthly?.spend ?? 0) };
  }

  /** Evaluates `decide` against the locked counters and reserves its charge for the action; a refusal (a throw) reserves nothing. */
  async reserve(agentId: string, actionId: string, now: Date, decide: (usage: UsageCounters) => SpendDecision): Promise<SpendDecision> {
    const { day, month } = periodOf(now);
    const s = this.schema;
    return this.transaction(async (client) => {
      await client.query(`INSERT INTO ${s}.agent_usage_daily (agent_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [agentId, day]);
      await client.query(`INSERT INTO ${s}.agent_usage_monthly (agent_id, month) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [agentId, month]);
      const daily = await client.query<{ transaction_count: number; spend: string }>(
        `SELECT transaction_count, spend FROM ${s}.agent_usage_daily WHERE agent_id = $1 AND day = $2 FOR UPDATE`,
        [agentId, day],
      );
      const monthly = await client.query<{ spend: string }>(
        `SELECT spend FROM ${s}.agent_usage_monthly WHERE agent_id = $1 AND month = $2 FOR UPDATE`,
        [agentId, month],
      );
      const [today] = daily.rows;
      const [thisMonth] = monthly.rows;
      if (!today || !thisMonth)
        throw new Error(`The usage rows of agent ${agentId} for ${day} were not found right after they were ensured.`);
      const decision = decide({
        dailyCount: today.transaction_count,
        dailySpend: BigInt(today.spend),
        monthlySpend: BigInt(thisMonth.spend),
      });
      const charge = decision.charge.toString();
      await client.query(
        `UPDATE ${s}.agent_usage_daily SET transaction_count = transaction_count + 1, spend = spend + $3 WHERE agent_id = $1 AND day = $2`,
        [agentId, day, charge],
      );
      await client.query(`UPDATE ${s}.agent_usage_monthly SET spend = spend + $3 WHERE agent_id = $1 AND month = $2`, [
        agentId,
        month,
        charge,
      ]);
      // A retried request reserves again under the same action id once its earlier reservation was given back.
      const reserved = await client.query(
        `INSERT INTO ${s}.agent_usage_reservations (action_id, agent_id, day, month, amount, reserved_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (action_id) DO UPDATE SET agent_id = $2, day = $3, month = $4, amount = $5, reserved_at = $6, released = false
         WHERE ${s}.agent_usage_reservations.released`,
        [actionId, agentId, day, month, charge, now],
      );
      // Held by another attempt of the same request still in flight: roll back, so nothing is counted twice.
      if (reserved.rowCount === 0)
        throw new DomainError('CONFLICT', 'conflict', 'This request is still being processed under its Idempotency-Key; retry shortly.', {
          actionId,
        });
      return decision;
    });
  }

  /** Gives an action's reservation back (rejected, failed, or never recorded); a second release does nothing. */
  async release(actionId: string): Promise<boolean> {
    const s = this.schema;
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ agent_id: string; day: string; month: string; amount: string }>(
        `SELECT agent_id, to_char(day, 'YYYY-MM-DD') AS day, month, amount FROM ${s}.agent_usage_reservations WHERE action_id = $1
         AND NOT released FOR UPDATE`,
        [actionId],
      );
      const reservation = rows[0];
      if (!reservation) return false;
      await client.query(
        `UPDATE ${s}.agent_usage_daily SET transaction_count = greatest(transaction_count - 1, 0), spend = greatest(spend - $3, 0)
         WHERE agent_id = $1 AND day = $2`,
        [reservation.agent_id, reservation.day, reservation.amount],
      );
      await client.query(`UPDATE ${s}.agent_usage_monthly SET spend = greatest(spend - $3, 0) WHERE agent_id = $1 AND month = $2`, [
        reservation.agent_id,
        reservation.month,
        reservation.amount,
      ]);
      await client.query(`UPDATE ${s}.agent_usage_reservations SET released = true WHERE action_id = $1`, [actionId]);
      return true;
    });
  }

  /**
   * Reservations older than `before` still held although their action was never recorded (the
   * request died in between: status null) or ended REJECTED or FAILED (the release after it failed).
   */
  async unreleased(before: Date, limit: number): Promise<{ actionId: string; status: string | null }[]> {
    const rows = await this.eventSourcing.read<{ action_id: string; status: string | null }>(
      'agents-usage-unreleased',
      `SELECT r.action_id, a.status FROM ${this.schema}.agent_usage_reservations r
       LEFT JOIN ${this.schema}.agent_actions a ON a.id = r.action_id
       WHERE NOT r.released AND r.reserved_at < $1 AND (a.id IS NULL OR a.status IN ('REJECTED', 'FAILED'))
       ORDER BY r.reserved_at LIMIT $2`,
      [before, limit],
    );
    return rows.map((row) => ({ actionId: row.action_id, status: row.status }));
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.eventSourcing.pool, work);
  }
}
