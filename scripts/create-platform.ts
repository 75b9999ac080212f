import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { type CreatePlatformData, type CreatePlatformReply, newUuid, type PlatformEnvironment, subjects } from '@corridor/contracts';
import { MessagingModule, parseNatsAuth, ServiceClient } from '@corridor/messaging';

// Creates a platform and its first token (all permissions) through the running platform service.
//   npm run bootstrap:platform -- --name "Acme" --environment SANDBOX [--uma-domain acme.example] [--json]
// Prints the credentials once: the secret is stored only as a hash.

const option = (args: string[], name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const environment = (option(args, 'environment') ?? 'SANDBOX').toUpperCase() as PlatformEnvironment;
  if (environment !== 'SANDBOX' && environment !== 'PRODUCTION') throw new Error('--environment must be SANDBOX or PRODUCTION.');
  const umaDomain = option(args, 'uma-domain');
  const data: CreatePlatformData = { name: option(args, 'name') ?? 'Sandbox platform', environment, ...(umaDomain ? { umaDomain } : {}) };
  const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
  const subjectPrefix = process.env['CORRIDOR_SUBJECT_PREFIX'] ?? 'corridor';
  const app = await NestFactory.createApplicationContext(
    MessagingModule.forRoot({ natsUrl, natsAuth: parseNatsAuth(process.env), subjectPrefix, name: 'bootstrap' }),
    { logger: ['error'] },
  );
  try {
    await app.init();
    const requestId = newUuid();
    const reply = await app.get(ServiceClient).request<CreatePlatformReply>(subjects.platform.platform.create, data, {
      context: { platformId: '', actor: { kind: 'system', name: 'bootstrap' }, requestId, correlationId: requestId },
      timeoutMs: 15_000,
    });
    if (args.includes('--json')) {
      console.log(JSON.stringify(reply));
      return;
    }
    const baseUrl = `http://127.0.0.1:${process.env['PORT'] ?? '8080'}/2025-10-13`;
    console.log(`Platform ${reply.platformId} (${reply.environment}) "${reply.name}"`);
    console.log(`  clientId      ${reply.token.clientId}`);
    console.log(`  clientSecret  ${reply.token.clientSecret}   (shown once; stored only as a hash)`);
    console.log(`  permissions   ${reply.token.permissions.join(', ')}`);
    console.log(`\nTry it:\n  curl -u ${reply.token.clientId}:${reply.token.clientSecret} ${baseUrl}/customers`);
  } finally {
    await app.close();
  }
};

main().catch((error: unknown) => {
  console.error(`could not create the platform: ${error instanceof Error ? error.message : String(error)}`);
  console.error('Is the platform service running? `npm run up` starts everything.');
  process.exit(1);
});
