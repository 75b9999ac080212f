import { readFileSync } from 'node:fs';

// Where a process's busy time went, from .cpuprofile files (BENCH_CPU_PROF=<dir> on a bench, or
// bench/cpu-profile.js preloaded): self time by package or source folder and by function, as a
// share of the non-idle samples. For the flame graph, open the file in speedscope or DevTools.
//   node -r @swc-node/register bench/profile-summary.ts <file.cpuprofile>…   (PROFILE_TOP=16)

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const TOP = Number(process.env['PROFILE_TOP'] ?? 16);

const placeOf = (url: string): { file: string; group: string } => {
  const inModules = url.split('/node_modules/');
  if (inModules.length > 1) {
    const file = inModules.at(-1)!;
    const parts = file.split('/');
    return { file, group: file.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]! };
  }
  const file = url.replace(/^file:\/\//, '').replace(/^.*?\/(apps|libs)\//, '$1/');
  const parts = file.split('/');
  return {
    file,
    group:
      parts.length > 2 && (parts[0] === 'apps' || parts[0] === 'libs')
        ? parts.slice(0, 2).join('/')
        : parts.slice(0, 2).join('/') || '(native)',
  };
};

for (const path of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const frame = nodes.get(id)!.callFrame;
    total += delta;
    // The profiler's own stop (node:inspector) is not the app's work.
    if (frame.url === 'node:inspector') {
      total -= delta;
      return;
    }
    if (frame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    const { file, group } = placeOf(frame.url);
    const groupName = frame.url ? group : frame.functionName;
    byGroup.set(groupName, (byGroup.get(groupName) ?? 0) + delta);
    const name = `${frame.functionName || '(anonymous)'}${frame.url ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
  });
  const busy = Math.max(1, total - idle);
  const top = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([name, micros]) => `  ${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`);
  console.log(
    `${path}: ${(total / 1e6).toFixed(1)} s sampled, ${((idle / Math.max(1, total)) * 100).toFixed(0)} % idle; shares of the busy time:`,
  );
  console.log(['by package / folder:', ...top(byGroup), 'by function:', ...top(byFunction)].join('\n'));
}
