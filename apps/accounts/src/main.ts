import 'reflect-metadata';
import { createServiceApp } from '@corridor/messaging';
import { AppModule } from './app.module';
import { loadConfig } from './config';

const bootstrap = async (): Promise<void> => {
  const config = loadConfig();
  const app = await createServiceApp(AppModule.register(config), {
    service: 'accounts',
    natsUrl: config.natsUrl,
    subjectPrefix: config.subjectPrefix,
    healthPort: config.healthPort,
    logLevel: config.logLevel,
  });
  await app.listen();
};

void bootstrap();
