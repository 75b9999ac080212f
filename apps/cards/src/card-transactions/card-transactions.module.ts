import { type DynamicModule, Module } from '@nestjs/common';
import { CLOCK, type Clock } from '@corridor/contracts';
import { CardClosings } from './card-closings';
import { CARD_LOOKUP } from './card-lookup';
import { CardPullTimer } from './card-pull-timer';
import { CARD_TRANSACTION_OPTIONS, type CardTransactionOptions } from './card-transaction-options';
import { CardTransactionsController } from './card-transactions.controller';
import { CardViewLookup } from './card-view-lookup';

/**
 * Card transactions and their simulators' service side; reads cards through CARD_LOOKUP, on the
 * service clock. Its read model (cardTransactionProjections) is registered with the app's
 * EventSourcingModule; CardPullTimer sweeps it for delayed pulls that fell due.
 */
@Module({})
export class CardTransactionsModule {
  static register(clock: Clock, options: CardTransactionOptions): DynamicModule {
    return {
      module: CardTransactionsModule,
      controllers: [CardTransactionsController],
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: CARD_TRANSACTION_OPTIONS, useValue: options },
        { provide: CARD_LOOKUP, useClass: CardViewLookup },
        CardPullTimer,
        CardClosings,
      ],
      exports: [CardPullTimer, CardClosings],
    };
  }
}
