import { type DynamicModule, Module } from '@nestjs/common';
import { actionOutcomeOf } from './actions/action-outcome';
import { join } from 'node:path';
import { CLOCK, type Clock } from '@corridor/contracts';
import { eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger } from '@corridor/messaging';
import { ActionExecutor } from './actions/action-executor';
import { actionViewProjection } from './actions/action-view.projection';
import { ActionsController } from './actions/actions.controller';
import { ActingAgent } from './agents/acting-agent';
import { AGENT_OPTIONS, type AgentOptions } from './agents/agent-options';
import { agentQuoteProjection } from './agents/agent-quote';
import { AgentResourcesController } from './agents/agent-resources.controller';
import { agentViewProjection, deviceCodeProjection } from './agents/agent-view.projection';
import { AgentsController } from './agents/agents.controller';
import type { AgentsServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';
import { AgentParties } from './parties';
import { UsageLedger } from './usage/usage-ledger';

@Module({})
export class AppModule {
  /** clock: the config's (the system's in production); tests pass one they can move. */
  static register(config: AgentsServiceConfig, clock: Clock = config.clock): DynamicModule {
    const options: AgentOptions = {
      schema: config.schema,
      deviceCodeTtlSeconds: config.deviceCodeTtlSeconds,
      executionSweepSeconds: config.executionSweepSeconds,
    };
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'agents',
        }),
        eventSourcingForService(config, {
          service: 'agents',
          logger: createLogger('agents', { level: config.logLevel }),
          outcomeOf: actionOutcomeOf,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [agentViewProjection, deviceCodeProjection, actionViewProjection, agentQuoteProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [AgentsController, ActionsController, AgentResourcesController],
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: AGENT_OPTIONS, useValue: options },
        AgentParties,
        ActingAgent,
        UsageLedger,
        ActionExecutor,
      ],
    };
  }
}
