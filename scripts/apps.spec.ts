// scripts/apps.json is the one list of apps: docker-compose.yml and deploy/k8s must run each of
// them with the probes the health server serves, and no file may ship a webhook key that
// production would accept. No Docker engine is needed: the YAML is parsed, not run.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseKeyEncryptionKey, PUBLIC_KEY_ENCRYPTION_KEYS } from '../apps/webhooks/src/config';

const root = join(__dirname, '..');
const { apps } = JSON.parse(readFileSync(join(root, 'scripts/apps.json'), 'utf8')) as {
  apps: { name: string; healthPort: number | null }[];
};
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

type ComposeService = {
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, unknown>;
  volumes?: string[];
  profiles?: string[];
  image?: string;
};
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

type Probe = { httpGet?: { path: string; port: string | number }; tcpSocket?: unknown };
type Container = { name: string; env?: { name: string; value: string }[]; readinessProbe?: Probe; livenessProbe?: Probe };
type Manifest = {
  kind: string;
  metadata: { name: string };
  spec?: { template?: { spec: { terminationGracePeriodSeconds?: number; containers: Container[] } } };
};
const k8sFiles = readdirSync(join(root, 'deploy/k8s')).filter((file) => file.endsWith('.yaml'));
const manifests: Manifest[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(`deploy/k8s/${file}`)).map((document) => document.toJS() as Manifest),
);
const kustomization = parse(read('deploy/k8s/kustomization.yaml')) as {
  resources: string[];
  secretGenerator: { name: string; literals: string[] }[];
};
const configMap = manifests.find(
  (manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name === 'corridor-config',
) as unknown as { data: Record<string, string> };

it('lists the seven apps in start order, the gateway last', () => {
  expect(apps.map((app) => app.name)).toEqual(['platform', 'customers', 'accounts', 'payments', 'webhooks', 'cards', 'agents', 'gateway']);
});

describe.each(apps.map((app) => app.name))('%s', (name) => {
  it('runs in docker-compose.yml as APP=<name>, ready-checked on /health/ready', () => {
    const service = compose.services[name];
    expect(service).toBeDefined();
    expect(service?.environment?.['APP']).toBe(name);
    expect(service?.healthcheck?.test.join(' ')).toContain('/health/ready');
  });

  it('is a Deployment in deploy/k8s with liveness on /health/live and readiness on /health/ready', () => {
    const deployment = manifests.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === name);
    expect(deployment).toBeDefined();
    const container = deployment?.spec?.template?.spec.containers[0];
    expect(container?.env).toContainEqual({ name: 'APP', value: name });
    expect(container?.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container?.readinessProbe?.httpGet?.path).toBe('/health/ready');
    // The kubelet's SIGKILL comes after the grace period; the process must have exited by itself before.
    expect((deployment?.spec?.template?.spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
      Number(configMap.data['SHUTDOWN_TIMEOUT_MS']),
    );
    expect(kustomization.resources).toContain(`${name}.yaml`);
  });
});

it('has no compose service running an app that apps.json does not list', () => {
  const running = Object.entries(compose.services).filter(([, service]) => service.image === 'corridor:local' && service.healthcheck);
  expect(running.map(([name]) => name).sort()).toEqual(apps.map((app) => app.name).sort());
});

it('offers PgBouncer in session mode in compose and in deploy/k8s', () => {
  expect(compose.services['pgbouncer']?.environment?.['POOL_MODE']).toBe('session');
  const deployment = manifests.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === 'pgbouncer');
  expect(deployment?.spec?.template?.spec.containers[0]?.env).toContainEqual({ name: 'POOL_MODE', value: 'session' });
  expect(kustomization.resources).toContain('pgbouncer.yaml');
});

it('makes the blobs volume writable by node before the apps that mount it start', () => {
  expect(compose.services['blobs-init']).toMatchObject({ user: 'root', command: ['chown', '-R', 'node:node', '/var/lib/corridor/blobs'] });
  for (const name of ['gateway', 'customers']) {
    expect(compose.services[name]?.volumes).toContain('blobs:/var/lib/corridor/blobs');
    expect(compose.services[name]?.depends_on).toHaveProperty('blobs-init', { condition: 'service_completed_successfully' });
  }
  expect(read('Dockerfile')).toMatch(/mkdir -p \/var\/lib\/corridor\/blobs && chown -R node:node/);
});

it('ships no webhook key that production accepts', () => {
  const webhooks = compose.services['webhooks']?.environment?.['WEBHOOK_KEY_ENCRYPTION_KEY'] ?? '';
  // ${VAR:?message}: compose refuses to start without the operator's own key.
  expect(webhooks).toMatch(/^\$\{WEBHOOK_KEY_ENCRYPTION_KEY:\?/);
  const literals = kustomization.secretGenerator.flatMap((secret) => secret.literals);
  const keys = literals
    .filter((literal) => literal.startsWith('WEBHOOK_KEY_ENCRYPTION_KEY='))
    .map((literal) => literal.slice('WEBHOOK_KEY_ENCRYPTION_KEY='.length));
  const composeDefaults = [...read('docker-compose.yml').matchAll(/WEBHOOK_KEY_ENCRYPTION_KEY:-([^}]+)\}/g)].map(
    (match) => match[1] as string,
  );
  for (const key of [...keys, ...composeDefaults]) {
    expect(PUBLIC_KEY_ENCRYPTION_KEYS).toContain(key);
    expect(() => parseKeyEncryptionKey({ NODE_ENV: 'production', WEBHOOK_KEY_ENCRYPTION_KEY: key })).toThrow(/openssl rand -base64 32/);
  }
});

it('lets no deployment file send webhooks to private addresses: only scripts/up.sh (development) opts in', () => {
  for (const file of ['docker-compose.yml', ...k8sFiles.map((name) => `deploy/k8s/${name}`)]) {
    expect(read(file)).not.toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  }
  expect(read('scripts/up.sh')).toMatch(/export WEBHOOK_ALLOW_PRIVATE_TARGETS=\$\{WEBHOOK_ALLOW_PRIVATE_TARGETS:-true\}/);
});
