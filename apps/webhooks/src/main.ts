import 'reflect-metadata';
import { createServiceApp } from '@corridor/messaging';
import { AppModule } from './app.module';
import { loadConfig } from './config';

// The webhooks service serves its own /health and /metrics (see app.module.ts), so the NATS
// server is started without the messaging library's health port.
const main = async (): Promise<void> => {
  const config = loadConfig();
  const app = await createServiceApp(AppModule.register(config), { service: 'webhooks', natsUrl: config.natsUrl, subjectPrefix: config.subjectPrefix, logLevel: config.logLevel });
  await app.listen();
};

void main();
