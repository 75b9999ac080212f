import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventsStreamName } from '@corridor/contracts';
import { busPassword, busPasswordVariable, busUsers, type BusUserName, natsServerConfig } from '@corridor/messaging';

// Writes nats-server's configuration from libs/messaging/src/bus-permissions.ts (decision 0025):
//   npm run nats:config                                   deploy/nats/nats-server.conf (subject prefix "corridor")
//   npm run nats:config -- --prefix acme --out <file>     for another CORRIDOR_SUBJECT_PREFIX
//   npm run nats:config -- --port <n> --store-dir <dir>   a local server's port and JetStream directory (up.sh)
//   npm run nats:config -- --passwords <file>             also writes NATS_PASSWORD_<USER>=<random> lines for users
//                                                         the file lacks (the local stack's up.sh keeps them in var/nats)
// The configuration names no password: nats-server reads each from its environment
// (NATS_PASSWORD_GATEWAY, NATS_PASSWORD_ACCOUNTS, ...), which a deployment fills from its secrets.

export const DEFAULT_CONFIG_FILE = join(__dirname, '../deploy/nats/nats-server.conf');

export const deploymentConfig = (subjectPrefix: string, local: { port?: number; storeDir?: string } = {}): string =>
  natsServerConfig({
    subjectPrefix,
    streamName: eventsStreamName(subjectPrefix),
    storeDir: local.storeDir ?? '/data/jetstream',
    ...(local.port ? { port: local.port } : {}),
  });

const option = (args: string[], name: string): string | undefined => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};

/** Keeps the passwords a file already has, adds a random one for each user it lacks. */
const writePasswords = (file: string): void => {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const missing = (Object.keys(busUsers) as BusUserName[]).filter((user) => !existing.includes(`${busPasswordVariable(user)}=`));
  const lines = missing.map((user) => `${busPasswordVariable(user)}=${busPassword()}\n`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, existing + lines.join(''), { mode: 0o600 });
};

if (require.main === module) {
  const args = process.argv.slice(2);
  const prefix = option(args, '--prefix') ?? process.env['CORRIDOR_SUBJECT_PREFIX'] ?? 'corridor';
  const out = option(args, '--out') ?? DEFAULT_CONFIG_FILE;
  mkdirSync(dirname(out), { recursive: true });
  const port = option(args, '--port');
  const storeDir = option(args, '--store-dir');
  writeFileSync(out, deploymentConfig(prefix, { ...(port ? { port: Number(port) } : {}), ...(storeDir ? { storeDir } : {}) }));
  const passwords = option(args, '--passwords');
  if (passwords) writePasswords(passwords);
  process.stdout.write(`nats-config: wrote ${out} (subject prefix "${prefix}")${passwords ? ` and ${passwords}` : ''}\n`);
}
