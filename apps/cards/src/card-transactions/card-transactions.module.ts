import { type DynamicModule, Module } from '@nestjs/common';
import { CLOCK, type Clock } from '@corridor/contracts';
import { CARD_LOOKUP } from './card-lookup';
import { CardTransactionsController } from './card-transactions.controller';
import { CardViewLookup } from './card-view-lookup';

/** Card transactions and their simulators' service side; reads cards through CARD_LOOKUP, on the service clock. */
@Module({})
export class CardTransactionsModule {
  static register(clock: Clock): DynamicModule {
    return {
      module: CardTransactionsModule,
      controllers: [CardTransactionsController],
      providers: [{ provide: CLOCK, useValue: clock }, { provide: CARD_LOOKUP, useClass: CardViewLookup }],
    };
  }
}
