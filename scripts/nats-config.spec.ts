// The bus permissions (libs/messaging/src/bus-permissions.ts, decision 0025) are the code's own
// calls, no more and no less: every subject of another service an app names is granted to it, and
// every grant is named by the app. The committed nats-server configuration is the generated one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { cardTransactionSubjects, eventStoreServices, eventsListSubject, subjects } from '@corridor/contracts';
import { busPermissions, busUsers, type BusUserName } from '@corridor/messaging';
import { DEFAULT_CONFIG_FILE, deploymentConfig } from './nats-config';

const root = join(__dirname, '..');

const sourceFiles = (directory: string): string[] =>
  readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });

// Every map of subjects libs/contracts exports; a new one belongs here too.
const subjectMaps: Record<string, unknown> = { subjects, cardTransactionSubjects };

const resolve = (root: string, path: string): string | undefined => {
  let node: unknown = subjectMaps[root];
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return typeof node === 'string' ? node : undefined;
};

/** Every subject of another service the app's code names (`subjects.accounts.ledger.credit`). */
const namedSubjects = (app: string): Set<string> => {
  const named = new Set<string>();
  for (const file of sourceFiles(join(root, 'apps', app, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\b(subjects|cardTransactionSubjects)\.([a-zA-Z]+(?:\.[a-zA-Z]+){0,2})\b/g)) {
      const subject = resolve(match[1]!, match[2]!);
      if (subject && !subject.startsWith(`${app}.`)) named.add(subject);
    }
    // The one subject made by a function: GET /events asks every store's own service (decision 0037).
    if (readFileSync(file, 'utf8').includes('eventsListSubject(')) {
      for (const service of eventStoreServices) if (service !== app) named.add(eventsListSubject(service));
    }
  }
  return named;
};

const users = Object.keys(busUsers).filter((user) => user !== 'operator') as BusUserName[];

describe('bus permissions', () => {
  it.each(users)('grants %s exactly the other services’ subjects its code names', (user) => {
    const grant = busUsers[user];
    const granted = new Set([...grant.requests, ...(grant.listens ?? [])]);
    expect([...namedSubjects(user)].sort()).toEqual([...granted].sort());
  });

  it('lets only the services that move money send ledger commands', () => {
    const ledger = Object.values(subjects.accounts.ledger) as string[];
    const senders = (Object.keys(busUsers) as BusUserName[]).filter((user) =>
      busUsers[user].requests.some((subject) => ledger.includes(subject)),
    );
    expect(senders.sort()).toEqual(['cards', 'payments']);
  });

  it('knows every map of subjects libs/contracts exports', () => {
    const contracts = sourceFiles(join(root, 'libs/contracts/src'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const exported = [...contracts.matchAll(/export const (\w*[sS]ubjects) = \{/g)].map((match) => match[1]);
    expect(exported.sort()).toEqual(Object.keys(subjectMaps).sort());
  });

  it('gives each user its own inbox, its own events and its own request subjects only', () => {
    const permissions = busPermissions('webhooks', 'corridor', 'CORRIDOR_EVENTS');
    expect(permissions.subscribe).toEqual(['_INBOX_webhooks.>', 'corridor.webhooks.>']);
    expect(permissions.publish.filter((subject) => subject.startsWith('corridor.events.'))).toEqual([]);
    expect(busPermissions('payments', 'corridor', 'CORRIDOR_EVENTS').publish).toContain('corridor.events.payments.>');
  });

  it.each([
    ['accounts', 'apps/accounts/src'],
    ['webhooks', 'apps/webhooks/src'],
  ] as const)('declares the JetStream consumers %s creates', (user, directory) => {
    const code = sourceFiles(join(root, directory))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    for (const { durable, filter } of busUsers[user].consumers ?? []) {
      expect(code).toContain(`'${durable}'`);
      // Either the filter written out, or consumeEvents(scope, durable, event) with the event after `events.`.
      const throughConsumeEvents =
        filter.startsWith('events.') &&
        new RegExp(`'${durable}',\\s*'${filter.slice('events.'.length).replace(/[.*>]/g, '\\$&')}'`).test(code);
      if (!throughConsumeEvents) expect(code).toContain(`\${subjectPrefix}.${filter}\``);
    }
  });

  it('ships the generated nats-server configuration (npm run nats:config)', () => {
    expect(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')).toBe(deploymentConfig('corridor'));
  });

  const apps = (JSON.parse(readFileSync(join(root, 'scripts/apps.json'), 'utf8')) as { apps: { name: string }[] }).apps.map(
    (app) => app.name,
  );

  it('runs every app as its own bus user in compose and in deploy/k8s', () => {
    const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    for (const app of apps) {
      expect(compose.services[app]?.environment?.['NATS_USER']).toBe(app);
      expect(compose.services[app]?.environment?.['NATS_PASSWORD']).toContain(`NATS_PASSWORD_${app.toUpperCase()}`);
      const manifest = readFileSync(join(root, `deploy/k8s/${app}.yaml`), 'utf8');
      expect(manifest).toContain(`- { name: NATS_USER, value: ${app} }`);
      expect(manifest).toContain(`secretKeyRef: { name: corridor-nats, key: ${app} }`);
    }
  });

  it('denies by default in deploy/k8s and lets only the gateway take traffic from anywhere', () => {
    type Policy = {
      metadata: { name: string };
      spec: { podSelector: { matchLabels?: Record<string, string> }; ingress?: { from?: unknown[] }[] };
    };
    const policies = parseAllDocuments(readFileSync(join(root, 'deploy/k8s/network-policies.yaml'), 'utf8')).map(
      (document) => document.toJS() as Policy,
    );
    expect(policies.find((policy) => policy.metadata.name === 'default-deny')?.spec.podSelector).toEqual({});
    for (const app of apps)
      expect(policies.find((policy) => policy.metadata.name === app)?.spec.podSelector.matchLabels).toEqual({
        'app.kubernetes.io/name': app,
      });
    const openToAll = policies
      .filter((policy) => (policy.spec.ingress ?? []).some((rule) => rule.from === undefined))
      .map((policy) => policy.metadata.name);
    expect(openToAll).toEqual(['gateway']);
  });
});
