// A tiny service for shutdown.int.spec.ts, run as its own process: with HANG=1 one provider's
// onApplicationShutdown never resolves, as a stuck loop's stop() would.
import 'reflect-metadata';
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { runService } from './service-app';
import { parseServiceConfig } from './service-config';

@Injectable()
class StuckWorker implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    if (process.env['HANG'] !== '1') return Promise.resolve();
    return new Promise<void>(() => undefined);
  }
}

@Module({ providers: [StuckWorker] })
class FixtureModule {}

void runService(FixtureModule, 'shutdown-fixture', parseServiceConfig(process.env, { schema: 'none', healthPort: 0 })).then(() => {
  process.stdout.write('FIXTURE_LISTENING\n');
});
