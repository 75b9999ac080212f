import 'reflect-metadata';
import './tracing';
import { createGateway } from './create-gateway';
import { loadConfig } from './config';

const bootstrap = async (): Promise<void> => {
  const config = loadConfig();
  const app = await createGateway(config);
  await app.listen({ port: config.port, host: '0.0.0.0' });
};

void bootstrap().catch((error: unknown) => {
  console.error('The gateway could not start:', error);
  process.exit(1);
});
