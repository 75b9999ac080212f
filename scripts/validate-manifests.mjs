// Renders the Kubernetes overlays (kubectl kustomize) and checks every object against the
// Kubernetes schemas (kubernetes-models, which carries them: no cluster and no network needed),
// then the rules Corridor's manifests keep: pinned images, probes, non-root, per-app secrets, an
// HPA and a PDB per Deployment, scrape annotations. Exits 1 naming each object that fails.
// ESM because kubernetes-models is published as ES modules only.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const overlays = ['deploy/overlays/dev', 'deploy/overlays/production'];
const APPS = ['platform', 'customers', 'accounts', 'payments', 'webhooks', 'cards', 'agents', 'gateway'];

const render = (overlay) => {
  try {
    return execFileSync('kubectl', ['kustomize', join(root, overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if (error.code === 'ENOENT')
      throw new Error('kubectl is not installed; install it (Debian: apt-get install kubectl) to render deploy/overlays.');
    throw new Error(`kubectl kustomize ${overlay} failed: ${error.stderr || error.message}`);
  }
};

/** apiVersion "apps/v1" → kubernetes-models/apps/v1, "v1" → kubernetes-models/v1; the class is the kind. */
const schemaCheck = async (object) => {
  // kustomize folds long base64 values over lines; the API server's decoder skips the newlines.
  if (object.kind === 'Secret' && object.data)
    object = { ...object, data: Object.fromEntries(Object.entries(object.data).map(([key, value]) => [key, value.replace(/\s/g, '')])) };
  const module = await import(`kubernetes-models/${object.apiVersion}`).catch(() => null);
  const Model = module?.[object.kind];
  if (!Model) return `no schema for ${object.apiVersion} ${object.kind}`;
  try {
    new Model(object).validate();
    return null;
  } catch (error) {
    return error.message;
  }
};

const podRules = (object) => {
  const problems = [];
  const pod = object.spec.template.spec;
  if (!pod.securityContext?.runAsNonRoot) problems.push('pod does not run as non-root');
  for (const container of pod.containers) {
    if (!/:[^:]+$/.test(container.image) || container.image.endsWith(':latest')) problems.push(`image ${container.image} is not pinned`);
    if (object.kind !== 'Deployment' || !APPS.includes(object.metadata.name)) continue;
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
      if (!container[probe]) problems.push(`${container.name} has no ${probe}`);
    if (!container.resources?.requests) problems.push(`${container.name} has no resource requests`);
    const secrets = (container.envFrom ?? []).filter((source) => source.secretRef).map((source) => source.secretRef.name);
    const foreign = secrets.filter((name) => !name.startsWith(`${object.metadata.name}-secrets`));
    if (foreign.length) problems.push(`${container.name} reads another app's secrets: ${foreign.join(', ')}`);
  }
  if (
    object.kind === 'Deployment' &&
    APPS.includes(object.metadata.name) &&
    object.spec.template.metadata.annotations?.['prometheus.io/scrape'] !== 'true'
  ) {
    problems.push('pod carries no prometheus.io/scrape annotation');
  }
  return problems;
};

const check = async (overlay) => {
  const objects = parseAllDocuments(render(overlay))
    .map((document) => document.toJSON())
    .filter(Boolean);
  const failures = [];
  for (const object of objects) {
    const name = `${overlay}: ${object.kind}/${object.metadata?.name}`;
    const schemaError = await schemaCheck(object);
    if (schemaError) failures.push(`${name}: ${schemaError}`);
    if (object.spec?.template?.spec?.containers) for (const problem of podRules(object)) failures.push(`${name}: ${problem}`);
  }
  for (const app of APPS) {
    for (const kind of ['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) {
      if (!objects.some((object) => object.kind === kind && object.metadata.name === app))
        failures.push(`${overlay}: ${app} has no ${kind}`);
    }
  }
  const jobs = objects.filter((object) => object.kind === 'Job' && object.metadata.name.startsWith('corridor-migrate-'));
  if (jobs.length !== 1)
    failures.push(
      `${overlay}: expected one corridor-migrate-<release> Job, found ${jobs.map((job) => job.metadata.name).join(', ') || 'none'}`,
    );
  console.log(`validate-manifests: ${overlay}: ${objects.length} objects, ${failures.length} problems`);
  return failures;
};

const failures = (await Promise.all(overlays.map(check))).flat();
for (const failure of failures) console.error(`  - ${failure}`);
process.exit(failures.length ? 1 : 0);
