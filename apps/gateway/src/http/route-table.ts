// The routes Fastify knows, kept so a miss can be told apart: a known path with another method
// is a 405 with an Allow header, anything else a 404.

type Route = { methods: string[]; pattern: RegExp };

const toPattern = (url: string): RegExp => {
  const escaped = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
};

export class RouteTable {
  private readonly routes: Route[] = [];

  add(method: string | string[], url: string): void {
    const methods = (Array.isArray(method) ? method : [method]).filter((name) => name !== 'HEAD');
    this.routes.push({ methods, pattern: toPattern(url) });
  }

  methodsFor(path: string): string[] {
    const methods = this.routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods);
    return [...new Set(methods)].sort();
  }
}
